import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpawnVestaOptions } from './spawnVesta.js';

/** Where Debian's libfaketime lives (scripts/ensure-faketime.sh installs it), or undefined. */
export function findLibfaketime(): string | undefined {
  for (const dir of readdirSync('/usr/lib', { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    const path = join('/usr/lib', dir.name, 'faketime', 'libfaketime.so.1');
    if (existsSync(path)) return path;
  }
  return undefined;
}

/**
 * A wall clock for real child processes, stepped from the test: libfaketime preloaded into the
 * process offsets CLOCK_REALTIME (node's `Date.now()`) by the seconds written in a file it
 * re-reads on every call (FAKETIME_NO_CACHE), so a step lands while the process runs.
 * CLOCK_MONOTONIC (`performance.now()`, timers) stays real. Every process spawned with
 * {@link spawnOptions} follows the same file, across restarts.
 */
export class FakeWallClock {
  /**
   * Puts a child process on this clock (its environment) and removes, once it is gone, the
   * shared memory and semaphore libfaketime creates per process in /dev/shm (left behind when
   * the process is killed; a later process given the same pid could trip over them).
   */
  readonly spawnOptions: SpawnVestaOptions;
  readonly #dir: string;
  readonly #file: string;

  private constructor(dir: string, library: string) {
    this.#dir = dir;
    this.#file = join(dir, 'faketimerc');
    this.spawnOptions = Object.freeze({
      env: Object.freeze({
        LD_PRELOAD: library,
        FAKETIME_TIMESTAMP_FILE: this.#file,
        FAKETIME_NO_CACHE: '1',
        FAKETIME_DONT_FAKE_MONOTONIC: '1',
        // File times stay real: tsx's cache and the state dir's files keep their true dates.
        NO_FAKE_STAT: '1',
      }),
      onExit: async (pid: number) => {
        await rm(`/dev/shm/faketime_shm_${pid}`, { force: true });
        await rm(`/dev/shm/sem.faketime_sem_${pid}`, { force: true });
      },
    });
  }

  /** A clock reading the real time (offset 0) until {@link set} steps it. */
  static async create(library: string): Promise<FakeWallClock> {
    const clock = new FakeWallClock(await mkdtemp(join(tmpdir(), 'vesta-faketime-')), library);
    await clock.set(0);
    return clock;
  }

  /** Sets the clock to the real time plus `offsetSeconds` (negative: behind). */
  async set(offsetSeconds: number): Promise<void> {
    // Written whole and renamed over: a process never reads a half-written setting.
    const next = `${this.#file}.next`;
    await writeFile(next, `${offsetSeconds >= 0 ? '+' : ''}${offsetSeconds}\n`);
    await rename(next, this.#file);
  }

  /** Removes the clock's file and directory. */
  async remove(): Promise<void> {
    await rm(this.#dir, { recursive: true, force: true });
  }
}
