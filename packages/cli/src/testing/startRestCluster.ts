import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { spawnVesta, type VestaProcess } from './spawnVesta.js';

/** A worker of a `vesta rest --workers` cluster, as its "listening" line lists it. */
export interface ClusterWorker {
  index: number;
  machineId: number;
  pid: number;
}

/** A running `vesta rest` (with workers) and what it logged. */
export interface RunningCluster {
  process: VestaProcess;
  port: number;
  url: string;
  workers: ClusterWorker[];
  /** Every JSON log line so far. */
  logs: Record<string, unknown>[];
  /** Resolves with the first log line (from now on) that `match` accepts. */
  nextLog(
    match: (entry: Record<string, unknown>) => boolean,
    deadlineMs?: number,
  ): Promise<Record<string, unknown>>;
}

/**
 * Test helper: starts `vesta rest` with `args` (and `--port 0`) and waits for its "listening"
 * line (which lists the workers). `started` is handed the process at once, so that the caller
 * can stop it even when it never listens.
 */
export async function startRestCluster(
  args: readonly string[],
  started: (process: VestaProcess) => void,
): Promise<RunningCluster> {
  // Three processes start: on a loaded 2-core machine that can take a while.
  const process = spawnVesta('rest', ['--port', '0', ...args], { listenDeadlineMs: 150_000 });
  started(process);
  const logs: Record<string, unknown>[] = [];
  const watchers = new Set<(entry: Record<string, unknown>) => void>();
  createInterface({ input: process.child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    logs.push(entry);
    for (const watcher of watchers) watcher(entry);
  });
  const port = await process.listening;
  const listening = logs.find((l) => String(l['msg']).startsWith('vesta rest listening'));
  return {
    process,
    port,
    url: `http://127.0.0.1:${port}`,
    workers: listening?.['workers'] as ClusterWorker[],
    logs,
    nextLog: (match, deadlineMs = 60_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          watchers.delete(watcher);
          reject(new Error(`no matching log line in ${deadlineMs} ms`));
        }, deadlineMs);
        const watcher = (entry: Record<string, unknown>): void => {
          if (!match(entry)) return;
          clearTimeout(timer);
          watchers.delete(watcher);
          resolve(entry);
        };
        watchers.add(watcher);
      }),
  };
}

/** What {@link useRestClusters} gives a spec file. */
export interface RestClusters {
  /** Processes killed (SIGKILL) after each test: the clusters started, and any pushed here. */
  readonly running: VestaProcess[];
  /** The file's temp dir (made before its first test, removed after its last). */
  dir(): string;
  /** {@link startRestCluster}, the process killed after the test. */
  startCluster(args: readonly string[]): Promise<RunningCluster>;
}

/**
 * Registers the hooks of a spec file of `vesta rest --workers` clusters: a temp dir for the
 * file, and every process started killed after each test. Call it at the top of the file.
 */
export function useRestClusters(): RestClusters {
  const running: VestaProcess[] = [];
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vesta-rest-workers-'));
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  return {
    running,
    dir: () => {
      if (dir === undefined) throw new Error('useRestClusters: no temp dir before beforeAll');
      return dir;
    },
    startCluster: (args) => startRestCluster(args, (process) => running.push(process)),
  };
}
