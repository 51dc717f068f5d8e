/*
 * A segment service in a child process, for the crash and fleet tests: one loop per key takes
 * numbers in batches and writes each batch to stdout as one line, waiting until the pipe took it,
 * before it takes the next, so a kill -9 loses at most one batch per key that was served but not
 * written. Lines: `n <key> <number> <number>...` for a batch, `e <key> <CODE>` for a call that
 * failed (the loop tries again 10 ms later). A loop pauses `pauseMs` between batches and stops
 * after 10,000,000 calls (then the process idles until told to stop). SIGTERM stops the
 * loops, closes the service (the rest handed back) and the store, writes `closed` (or
 * `close-failed <CODE>` when the rest could not be handed back) and exits 0. (Stdin is not read:
 * under tsx's loader a listener on a piped stdin stalls the event loop until data comes.)
 * Argument: JSON { store: 'postgres' | 'redis', url, namespace, keys, maxStep, batch?, pauseMs?,
 * requireAppendOnly? }.
 */
import { VestaError } from '@vesta/core';
import { sleep } from '@vesta/core/kit';
import { createSegmentService } from '../createSegmentService.js';
import { PostgresSegmentStore } from '../postgres/PostgresSegmentStore.js';
import { RedisSegmentStore } from '../redis/RedisSegmentStore.js';
import type { SegmentStore } from '../store/SegmentStore.js';

const args = JSON.parse(process.argv[2] ?? '{}') as {
  store: 'postgres' | 'redis';
  url: string;
  namespace: string;
  keys: string[];
  maxStep: number;
  batch?: number;
  pauseMs?: number;
  requireAppendOnly?: boolean;
};
const batch = args.batch ?? 100;
const store: SegmentStore =
  args.store === 'postgres'
    ? new PostgresSegmentStore({
        url: args.url,
        schema: args.namespace,
        connectTimeoutMs: 1000,
        operationTimeoutMs: 2000,
      })
    : new RedisSegmentStore({
        url: args.url,
        prefix: args.namespace,
        requireAppendOnly: args.requireAppendOnly ?? true,
        connectTimeoutMs: 1000,
        operationTimeoutMs: 2000,
      });
// retryAfterMs 0: a background refill that failed is tried again at the next call.
const service = createSegmentService({ store, maxStep: args.maxStep, retryAfterMs: 0 });
let stopping = false;

/**
 * Writes one line and waits until it is handed to the pipe: a parent reading slowly makes a
 * write queue in this process (lost on a kill or an exit), so nothing more is served meanwhile.
 */
const report = (line: string): Promise<void> =>
  new Promise((resolve) => process.stdout.write(`${line}\n`, () => resolve()));

const codeOf = (error: unknown): string => (VestaError.is(error) ? error.code : 'UNCODED');

async function serve(key: string): Promise<void> {
  for (let call = 0; call < 10_000_000 && !stopping; call++) {
    try {
      const numbers = await service.segments(key, batch);
      await report(`n ${key} ${numbers.join(' ')}`);
      // At least a turn of the event loop, so the claims' answers are read between batches.
      if (args.pauseMs === undefined) await new Promise((resolve) => setImmediate(resolve));
      else await sleep(args.pauseMs);
    } catch (error) {
      await report(`e ${key} ${codeOf(error)}`);
      await sleep(10);
    }
  }
}

const loops = Promise.all(args.keys.map(serve));
// Keeps the process up once the loops are done, until SIGTERM.
const idle = setInterval(() => undefined, 60_000);
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  await loops;
  try {
    await service.close();
    await report('closed');
  } catch (error) {
    await report(`close-failed ${codeOf(error)}`);
  }
  await store.close();
  clearInterval(idle);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
