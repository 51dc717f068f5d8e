import { startFixtureWorker } from './startFixtureWorker.js';

/**
 * Runs the TypeScript worker module `worker` (a file URL) with `workerData` and resolves with
 * the first message it posts; rejects on an error or a non-zero exit.
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
