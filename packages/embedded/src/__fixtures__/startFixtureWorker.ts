import { Worker } from 'node:worker_threads';
import { compiledFixture, FIXTURE_EXEC_ARGV } from '@vesta/testkit';

/**
 * For tests: a worker thread running the TypeScript module `worker` (a file URL) with
 * `workerData`. The module is compiled for plain Node (testkit's compiledFixture), its
 * packages loaded from their `dist/`: no loader to register in each thread (tsx registers its
 * loader in the main thread only, and a worker that registers it itself pays about a second of
 * CPU to start).
 */
export async function startFixtureWorker(worker: string, workerData: unknown): Promise<Worker> {
  return new Worker(await compiledFixture(worker), {
    execArgv: [...FIXTURE_EXEC_ARGV],
    workerData,
  });
}
