import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { VESTA_CLI } from '@vesta/testkit';

/** How long a server process may take to log its "listening" line (on a loaded 2-core machine). */
const LISTEN_DEADLINE_MS = 45_000;

/** How a child process ended: its exit code, or the signal that killed it. */
export interface VestaExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** How to run the child process. */
export interface SpawnVestaOptions {
  /** Added to this process's environment (e.g. LD_PRELOAD for libfaketime). */
  readonly env?: Readonly<Record<string, string>>;
  /** Runs once the process is gone, before `exited` resolves (e.g. removes what it left behind). */
  readonly onExit?: (pid: number) => Promise<void>;
  /** How long the process may take to log its "listening" line. @default 45000 */
  readonly listenDeadlineMs?: number;
  /**
   * The program to run and its first arguments, e.g. an installed `node_modules/.bin/vesta`.
   * @default [process.execPath, ...VESTA_CLI]
   */
  readonly cli?: readonly [string, ...string[]];
  /** The OS user and group to run as (the test runs as root). @default this process's */
  readonly user?: { readonly uid: number; readonly gid: number };
}

/** A `vesta rest` / `vesta server` child process. */
export interface VestaProcess {
  readonly child: ChildProcess;
  /**
   * Resolves with the port once the process logs that it listens; rejects when it exits first
   * (a refused start-up) or does not listen in time.
   */
  readonly listening: Promise<number>;
  /** Resolves once the process is gone (and `onExit` ran). */
  readonly exited: Promise<VestaExit>;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** The lines the process wrote to stdout so far (its JSON log lines). */
  stdout(): readonly string[];
  /** Sends `signal` and resolves once the process is gone. */
  stop(signal: NodeJS.Signals): Promise<VestaExit>;
}

/**
 * Test helper: runs the real `vesta` command line (compiled, see testkit's `VESTA_CLI`) with
 * `command` (`rest` or `server`) and its flags, in a child process of its own so that a test
 * can SIGKILL it. The command must log JSON lines (the default `--log-level info`).
 */
export function spawnVesta(
  command: 'rest' | 'server',
  args: readonly string[],
  options: SpawnVestaOptions = {},
): VestaProcess {
  const [program, ...leading] = options.cli ?? [process.execPath, ...VESTA_CLI];
  const child = spawn(program, [...leading, command, ...args], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options.user,
  });
  const pid = child.pid;
  let stderr = '';
  const stdout: string[] = [];
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<VestaExit>((resolve, reject) =>
    child.once('exit', (code, signal) => {
      const after = pid === undefined ? undefined : options.onExit?.(pid);
      void Promise.resolve(after).then(() => resolve({ code, signal }), reject);
    }),
  );
  const deadlineMs = options.listenDeadlineMs ?? LISTEN_DEADLINE_MS;
  const listening = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`vesta ${command} did not listen in ${deadlineMs} ms: ${stderr}`));
    }, deadlineMs);
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      stdout.push(line);
      let entry: { msg?: unknown; port?: unknown };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        return;
      }
      if (String(entry.msg).startsWith(`vesta ${command} listening`)) {
        clearTimeout(timer);
        resolve(Number(entry.port));
      }
    });
    void exited.then(
      ({ code, signal }) => {
        clearTimeout(timer);
        reject(
          new Error(`vesta ${command} exited (${signal ?? code}) before listening: ${stderr}`),
        );
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      },
    );
  });
  // A refused start-up is an expected outcome for some tests: they read `exited` instead.
  listening.catch(() => undefined);
  return {
    child,
    listening,
    exited,
    stderr: () => stderr,
    stdout: () => stdout,
    stop: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
