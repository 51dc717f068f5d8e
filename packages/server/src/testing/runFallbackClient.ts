/**
 * A test fixture: one client host of a fleet. Starts a client from the JSON config in argv[2]
 * (its servers, and a fallback on a fixed `machineId` or leased from Redis over a Unix socket),
 * prints `READY <machine>` once started, waits for `GO` on stdin, then issues ids for at most
 * `maxMs` or `maxIds` ids, writes them (decimal, one a line) to `out`, prints `DONE <count>`,
 * closes the client and exits. Warnings go to stderr. Tests run it in a network namespace of
 * its own (`unshare --net`) to stand for another host.
 */
import { writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { RedisMachineIdProvider } from '@vesta/redis';
import { createIdClient } from '../client/createIdClient.js';
import type { IdClientFallbackOptions } from '../client/IdClientOptions.js';

interface FallbackClientConfig {
  readonly servers: string[];
  /** A fixed fallback machine id, or a Redis to lease one from. */
  readonly machineId?: number;
  readonly redis?: { readonly url: string; readonly prefix: string };
  readonly out: string;
  readonly maxIds: number;
  readonly maxMs: number;
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

process.stdin.setEncoding('utf8');
let input = '';
while (!input.includes('GO')) {
  const [chunk] = (await once(process.stdin, 'data')) as [string];
  input += chunk;
}

const ids: bigint[] = [];
const start = performance.now();
while (ids.length < config.maxIds && performance.now() - start < config.maxMs) {
  ids.push(...(await client.genIds(Math.min(1000, config.maxIds - ids.length))));
}
writeFileSync(config.out, ids.join('\n'));
process.stdout.write(`DONE ${ids.length}\n`);
await client.close();
process.exit(0);
