/**
 * A test fixture: one client host of a fleet. Starts a client from the JSON config in argv[2]
 * (its servers, and a fallback on a fixed `machineId` or leased from Redis over a Unix socket),
 * prints `READY <machine>` once started, and on `GO` (stdin) issues `batch` ids about every
 * millisecond, printing `ISSUING` after the first batch; it stops once told `STOP` and at least
 * `minMs` in, or at `maxMs` or `maxIds` (so a test that says STOP after both hosts print ISSUING
 * knows they issued at the same time). Then it writes its ids (decimal, one a line) to `out`,
 * prints `DONE <count> <stopped|bounded>`, closes the client and exits. Warnings go to stderr.
 * Tests run it in a network namespace of its own (`unshare --net`) to stand for another host.
 */
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisMachineIdProvider } from '@vesta/redis';
import { createIdClient } from '../client/IdClient.js';
import type { IdClientFallbackOptions } from '../client/IdClientOptions.js';

interface FallbackClientConfig {
  readonly servers: string[];
  /** A fixed fallback machine id, or a Redis to lease one from. */
  readonly machineId?: number;
  readonly redis?: { readonly url: string; readonly prefix: string };
  readonly out: string;
  readonly batch: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly maxIds: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as FallbackClientConfig;
const fallback: IdClientFallbackOptions =
  config.redis === undefined
    ? { machineId: config.machineId }
    : {
        machineIdProvider: new RedisMachineIdProvider({
          ...config.redis,
          // A Redis started for the test holds nothing from an earlier holder.
          eraWaitMs: 0,
        }),
      };
const client = await createIdClient({
  servers: config.servers,
  connectTimeoutMs: 200,
  fallback,
});
process.stdout.write(`READY ${client.info().machine}\n`);

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => (input += chunk));
const said = (word: string): boolean => input.includes(word);
const deadline = performance.now() + 60_000;
while (!said('GO') && performance.now() < deadline) await sleep(5);

const ids: bigint[] = [];
const start = performance.now();
let stopped = false;
while (ids.length < config.maxIds && performance.now() - start < config.maxMs) {
  ids.push(...(await client.genIds(config.batch)));
  if (ids.length === config.batch) process.stdout.write('ISSUING\n');
  if (said('STOP') && performance.now() - start >= config.minMs) {
    stopped = true;
    break;
  }
  await sleep(1);
}
writeFileSync(config.out, ids.join('\n'));
process.stdout.write(`DONE ${ids.length} ${stopped ? 'stopped' : 'bounded'}\n`);
await client.close();
process.exit(0);
