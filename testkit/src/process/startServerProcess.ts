import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { sleep } from '@vesta/core/kit';
import type { TestServer } from './TestServer.js';

/** What {@link startServerProcess} runs, and how it knows the server is up. */
export interface ServerProcessOptions {
  /** The server's name in errors (`etcd`, `PostgreSQL`...). */
  readonly name: string;
  /** The port of 127.0.0.1 it serves on. */
  readonly port: number;
  readonly command: string;
  readonly args: readonly string[];
  /** Environment, working directory, uid/gid; stdio is always piped (its output ends errors). */
  readonly spawn?: Omit<SpawnOptions, 'stdio'>;
  /** One probe: resolves true once the server serves (bounded by its own timeout). */
  readonly ready: () => Promise<boolean>;
  /** How long a start may wait for `ready`. */
  readonly readyTimeoutMs: number;
  /** The pause between two probes. @default 100 */
  readonly probeIntervalMs?: number;
  /** Runs after each start, once `ready` said true (e.g. create a database). */
  readonly afterStart?: () => Promise<void>;
  /** Said after "(it exited" when the process ends before it is ready. @default none */
  readonly exitHint?: string;
  /** The signal of a graceful stop. @default 'SIGTERM' */
  readonly stopSignal?: NodeJS.Signals;
  /** The signal of a crash (`stop({ kill: true })`). @default 'SIGKILL' */
  readonly killSignal?: NodeJS.Signals;
  /** How long a stop waits for the exit before SIGKILL. @default 5000 */
  readonly stopTimeoutMs?: number;
  /**
   * How `wipe()` loses the data: `{ dataDir }` kills the server, leaves `dataDir` a new empty
   * directory and starts it again; a function does it its own way while the server runs.
   */
  readonly wipe: { readonly dataDir: string } | (() => Promise<void>);
  /** The temporary directory the server owns, deleted by `dispose()`. */
  readonly dir: string;
}

/**
 * Spawns a server on 127.0.0.1:`port` and waits until its probe says it serves, at most `readyTimeoutMs` (probing,
 * never sleeping a guessed time); a process that exits or misses the deadline is killed and the
 * start rejects with the tail of its output.
 */
export async function startServerProcess(options: ServerProcessOptions): Promise<TestServer> {
  const probeIntervalMs = options.probeIntervalMs ?? 100;
  const address = `127.0.0.1:${options.port}`;
  const { wipe } = options;
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    let output = '';
    const proc = spawn(options.command, options.args, {
      ...options.spawn,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    const keep = (chunk: Buffer): void => {
      output = (output + String(chunk)).slice(-4000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    let exited = false;
    proc.once('error', () => (exited = true));
    proc.once('exit', () => (exited = true));
    const deadline = Date.now() + options.readyTimeoutMs;
    while (!(await options.ready())) {
      if (exited || Date.now() > deadline) {
        proc.kill('SIGKILL');
        const why = exited ? ` (it exited${options.exitHint ?? ''})` : '';
        throw new Error(`${options.name} did not start on ${address}${why}:\n${output}`);
      }
      await sleep(probeIntervalMs);
    }
    await options.afterStart?.();
  };

  const stop = async ({ kill = false } = {}): Promise<void> => {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(kill ? (options.killSignal ?? 'SIGKILL') : (options.stopSignal ?? 'SIGTERM'));
    const timer = setTimeout(() => proc.kill('SIGKILL'), options.stopTimeoutMs ?? 5000);
    await exited;
    clearTimeout(timer);
  };

  await launch();
  return {
    port: options.port,
    address,
    get pid() {
      return child?.pid;
    },
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
    wipe: async () => {
      if (typeof wipe === 'function') return wipe();
      await stop({ kill: true });
      rmSync(wipe.dataDir, { recursive: true, force: true });
      mkdirSync(wipe.dataDir, { mode: 0o700 });
      await launch();
    },
    dispose: async () => {
      await stop();
      rmSync(options.dir, { recursive: true, force: true });
    },
  };
}
