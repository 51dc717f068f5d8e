import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { compiledFixture, FIXTURE_EXEC_ARGV } from '@vesta/testkit';

const WORKER = new URL('../__fixtures__/segmentWorker.ts', import.meta.url);

/** What `src/__fixtures__/segmentWorker.ts` is started with. */
export interface SegmentWorkerArgs {
  readonly store: 'postgres' | 'redis';
  readonly url: string;
  /** The PostgreSQL schema or the Redis prefix. */
  readonly namespace: string;
  readonly keys: readonly string[];
  readonly maxStep: number;
  /** Numbers per call. @default 100 */
  readonly batch?: number;
  /** The pause between a key's calls. @default none, one turn of the event loop */
  readonly pauseMs?: number;
  /** The Redis store's `requireAppendOnly`. @default true */
  readonly requireAppendOnly?: boolean;
}

/** A failed call a worker reported. */
export interface WorkerError {
  readonly code: string;
  /** How many numbers of the key the life had reported before it. */
  readonly after: number;
}

/** How a worker process ended: its exit code, or the signal that killed it. */
export interface WorkerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * For tests: one life of a segment service in a child process (the fixture), and everything it
 * reported on whole lines of its stdout (a line cut by a kill is not counted): per key the numbers
 * in the order it served them, and the codes of the calls that failed.
 */
export class SegmentWorkerProcess {
  /** Per key, every number reported, in the order served. */
  readonly numbers = new Map<string, bigint[]>();
  /** Per key, every failed call, in order. */
  readonly errors = new Map<string, WorkerError[]>();
  /** `closed`, or `close-failed <CODE>`, once the clean close ended. */
  closeResult: string | undefined;
  /** Every number reported, all keys together. */
  count = 0;
  /** The child's stderr (to show when a wait fails). */
  stderr = '';
  readonly exited: Promise<WorkerExit>;
  readonly #child: ChildProcessByStdio<null, Readable, Readable>;
  #pending = '';

  /** Starts a life: the fixture, compiled (once per test file), in a child process. */
  static async start(args: SegmentWorkerArgs): Promise<SegmentWorkerProcess> {
    return new SegmentWorkerProcess(args, await compiledFixture(WORKER));
  }

  private constructor(args: SegmentWorkerArgs, worker: string) {
    for (const key of args.keys) {
      this.numbers.set(key, []);
      this.errors.set(key, []);
    }
    this.#child = spawn(process.execPath, [...FIXTURE_EXEC_ARGV, worker, JSON.stringify(args)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // 'close', not 'exit': it comes once stdout is read to its end, so every line is counted.
    this.exited = new Promise((resolve) =>
      this.#child.once('close', (code, signal) => resolve({ code, signal })),
    );
    this.#child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.#child.stdout.on('data', (chunk: Buffer) => this.#read(chunk.toString()));
  }

  /** The numbers of every key reported so far, in one list. */
  all(): bigint[] {
    return [...this.numbers.values()].flat();
  }

  /** Numbers of `key` reported so far. */
  countOf(key: string): number {
    return this.numbers.get(key)?.length ?? 0;
  }

  /** Failed calls of `key` reported so far. */
  errorsOf(key: string): readonly WorkerError[] {
    return this.errors.get(key) ?? [];
  }

  /** Kills it with SIGKILL (a crash: nothing handed back) and waits for the exit. */
  async kill(): Promise<WorkerExit> {
    this.#child.kill('SIGKILL');
    return this.exited;
  }

  /** Asks for a clean close (the rest handed back) and waits for the exit. */
  async close(): Promise<WorkerExit> {
    this.#child.kill('SIGTERM');
    return this.exited;
  }

  #read(text: string): void {
    const lines = (this.#pending + text).split('\n');
    this.#pending = lines.pop() ?? '';
    for (const line of lines) {
      const [kind, key = '', ...rest] = line.split(' ');
      if (kind === 'n') {
        const numbers = rest.map(BigInt);
        this.numbers.get(key)?.push(...numbers);
        this.count += numbers.length;
      } else if (kind === 'e') {
        this.errors.get(key)?.push({ code: rest[0] ?? '', after: this.countOf(key) });
      } else if (kind === 'closed' || kind === 'close-failed') {
        this.closeResult = line;
      }
    }
  }
}
