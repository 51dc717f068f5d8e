/**
 * Test fixture, run as a process under Node, Bun or Deno (bundled for them by testkit's
 * compiledFixture): one embedded service of the populator given as JSON in argv[2], and, with
 * `workers`, that many worker threads attached to it (this same file, as a worker). Each thread
 * issues `count` ids, half with genIds and half one at a time (genIdSync where the populator has
 * it, concurrent genId calls with 'lock'). Prints one JSON line: the runtime, the machine id and
 * each thread's ids as decimal strings in issue order; or the code of the VestaError that
 * stopped it (exit code 2).
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { VestaError } from '@vesta/core';
import { attachEmbeddedIdService } from '../attachEmbeddedIdService.js';
import { createEmbeddedIdService } from '../createEmbeddedIdService.js';
import type { WorkerIdServiceConfig } from '../EmbeddedIdService.js';

interface SmokeRun {
  machineId: number;
  populator: 'sync' | 'lock' | 'atomic';
  count: number;
  workers?: number;
  stateDir?: string;
  /** Moves this process's clock by this much from the wall clock (a clock stepped back). */
  clockOffsetMs?: number;
}

interface IdSource {
  genId(): Promise<bigint>;
  genIds(count: number): Promise<bigint[]>;
  genIdSync(): bigint;
}

async function issue(ids: IdSource, count: number, sync: boolean): Promise<string[]> {
  const batch = await ids.genIds(Math.ceil(count / 2));
  const single = Array.from({ length: count - batch.length });
  const singles = sync
    ? single.map(() => ids.genIdSync())
    : await Promise.all(single.map(() => ids.genId()));
  return [...batch, ...singles].map(String);
}

function runtime(): string {
  if ('Bun' in globalThis) return 'bun';
  if ('Deno' in globalThis) return 'deno';
  return 'node';
}

function runWorker(url: URL, data: unknown): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(url, { workerData: data });
    thread.once('message', resolve);
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`worker exited with code ${code}`)));
  });
}

async function main(run: SmokeRun): Promise<void> {
  const offset = run.clockOffsetMs ?? 0;
  const ids = await createEmbeddedIdService({
    machineId: run.machineId,
    populator: run.populator,
    ...(run.stateDir === undefined ? {} : { stateDir: run.stateDir }),
    ...(offset === 0 ? {} : { clock: () => Date.now() + offset }),
  });
  try {
    const workers = Array.from({ length: run.workers ?? 0 }, () =>
      runWorker(new URL(import.meta.url), {
        config: (ids as { workerConfig(): WorkerIdServiceConfig }).workerConfig(),
        count: run.count,
      }),
    );
    const threads = await Promise.all([
      issue(ids, run.count, run.populator !== 'lock'),
      ...workers,
    ]);
    process.stdout.write(
      `${JSON.stringify({ runtime: runtime(), machine: ids.info().machine, threads })}\n`,
    );
  } finally {
    await ids.close();
  }
}

async function worker(): Promise<void> {
  const { config, count } = workerData as { config: WorkerIdServiceConfig; count: number };
  const ids = await attachEmbeddedIdService(config);
  try {
    parentPort?.postMessage(await issue(ids, count, true));
  } finally {
    await ids.close();
  }
}

try {
  await (isMainThread ? main(JSON.parse(process.argv[2] ?? '{}') as SmokeRun) : worker());
} catch (error) {
  if (!isMainThread || !VestaError.is(error)) throw error;
  process.stdout.write(`${JSON.stringify({ code: error.code, message: error.message })}\n`);
  process.exitCode = 2;
}
