import { Worker } from 'node:worker_threads';
import { compiledFixture, FIXTURE_EXEC_ARGV } from './compiledFixture.js';

/**
 * Test helper: a worker thread running the TypeScript module `worker` (a file URL) with
 * `workerData`. The module is compiled for plain Node ({@link compiledFixture}), its packages
 * loaded from their `dist/`: no loader to register in each thread (tsx registers its loader in
 * the main thread only, and a worker that registers it itself pays about a second of CPU to start).
 */
export async function startFixtureWorker(worker: string, workerData: unknown): Promise<Worker> {
  return new Worker(await compiledFixture(worker), {
    execArgv: [...FIXTURE_EXEC_ARGV],
    workerData,
  });
}

/**
 * Test helper: runs the worker module `worker` with `workerData` and resolves with the first
 * message it posts; rejects on an error or a non-zero exit.
 */
export async function runWorker<T>(worker: string, workerData: unknown): Promise<T> {
  const thread = await startFixtureWorker(worker, workerData);
  return new Promise((resolve, reject) => {
    thread.once('message', (result: T) => resolve(result));
    thread.once('error', reject);
    thread.once('exit', (code) => {
      if (code !== 0) reject(new Error(`worker exited with code ${code}`));
    });
  });
}

/** Test helper: a wall clock shared between threads, that only the test moves. */
export interface SharedClock {
  /** The cell (Unix ms, 64-bit) that worker threads read. */
  readonly buffer: SharedArrayBuffer;
  /** The time now, as a service's `clock` option. */
  now(): number;
  /** Sets the time of every thread to `ms`. */
  set(ms: number): void;
}

/** Test helper: a {@link SharedClock} standing at `ms`. */
export function sharedClock(ms: number): SharedClock {
  const buffer = new SharedArrayBuffer(8);
  const cell = new BigInt64Array(buffer);
  const set = (at: number): void => {
    Atomics.store(cell, 0, BigInt(at));
  };
  set(ms);
  return { buffer, now: () => Number(Atomics.load(cell, 0)), set };
}

/** What a request worker answers a count with: the ids it issued and the code that stopped it. */
export interface RequestWorkerResult {
  ids: bigint[];
  code?: string;
}

/** A worker thread of {@link startRequestWorker}. */
export interface RequestWorker {
  /** Asks the worker for `count` ids. */
  issue(count: number): Promise<RequestWorkerResult>;
  /** Asks the worker to close and waits for the thread to exit. */
  stop(): Promise<void>;
}

/**
 * Test helper: a worker thread of `worker` (a module that posts 'ready', answers each count
 * with a {@link RequestWorkerResult}, and exits on 'close'), once it is ready. A worker that fails
 * or exits fails every answer it owes.
 */
export async function startRequestWorker(
  worker: string,
  workerData: unknown,
): Promise<RequestWorker> {
  const thread = await startFixtureWorker(worker, workerData);
  const failed = new Promise<never>((_, reject) => {
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`worker exited with code ${code}`)));
  });
  failed.catch(() => undefined);
  const next = <R>(): Promise<R> =>
    Promise.race([new Promise<R>((resolve) => thread.once('message', resolve)), failed]);
  await next<'ready'>();
  return {
    issue: (count) => {
      const reply = next<RequestWorkerResult>();
      thread.postMessage(count);
      return reply;
    },
    stop: async () => {
      thread.postMessage('close');
      await new Promise((resolve) => thread.once('exit', resolve));
    },
  };
}
