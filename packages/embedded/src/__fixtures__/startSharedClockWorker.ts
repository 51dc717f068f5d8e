import type { WorkerIdServiceConfig } from '../WorkerIdServiceConfig.js';
import type { SharedClock } from './sharedClock.js';
import { startFixtureWorker } from './startFixtureWorker.js';

const WORKER = new URL('./issueOnSharedClockWorker.ts', import.meta.url).href;

/** What a worker answers a count with: the ids it issued and the code that stopped it early. */
export interface SharedClockWorkerResult {
  ids: bigint[];
  code?: string;
}

/** A worker thread of {@link startSharedClockWorker}. */
export interface SharedClockWorker {
  /** Asks the worker for `count` ids. */
  issue(count: number): Promise<SharedClockWorkerResult>;
  /** Closes the worker's service and waits for the thread to exit. */
  stop(): Promise<void>;
}

/**
 * For tests: a worker thread attached to `config` on the shared `clock`
 * (`issueOnSharedClockWorker.ts`), once it is ready. A worker that fails or exits fails every
 * answer it owes.
 */
export async function startSharedClockWorker(
  config: WorkerIdServiceConfig,
  clock: SharedClock,
): Promise<SharedClockWorker> {
  const worker = await startFixtureWorker(WORKER, { config, clock: clock.buffer });
  const failed = new Promise<never>((_, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`worker exited with code ${code}`)));
  });
  failed.catch(() => undefined);
  const next = <R>(): Promise<R> =>
    Promise.race([new Promise<R>((resolve) => worker.once('message', resolve)), failed]);
  await next<'ready'>();
  return {
    issue: (count) => {
      const reply = next<SharedClockWorkerResult>();
      worker.postMessage(count);
      return reply;
    },
    stop: async () => {
      worker.postMessage('close');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}
