import { fork, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { compiledFixtures, FIXTURE_EXEC_ARGV } from '../process/compiledFixture.js';
import { fleetClockMs, type FleetOutcome } from './startFleetMembers.js';

const CHILD = new URL('./runFleetProcess.ts', import.meta.url);

/** How long a child may take to import its harness and create its providers. */
const READY_WITHIN_MS = 60_000;
/** How long a child may take to close its services and exit once told (then it is killed). */
const CLOSED_WITHIN_MS = 30_000;

/** What a child of {@link FleetProcesses} is given (JSON, its one argument). */
export interface FleetChildConfig {
  /** The module exporting the harness as `fleetStartHarness` (the child gets its compiled one). */
  readonly module: string;
  readonly address: string;
  readonly namespace: string;
  /** The host-lock scope of the fleet: start `i` locks under `<scope>/<i>`. */
  readonly scope: string;
  /** The starts it runs (their numbers in the fleet). */
  readonly indexes: readonly number[];
}

/** What the parent tells a child: start now (at the parent's {@link fleetClockMs}), or close. */
export type FleetParentMessage =
  { readonly type: 'go'; readonly goAtMs: number } | { readonly type: 'close' };

/** What a child tells the parent: its providers exist, then how its starts ended. */
export type FleetChildMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'outcomes'; readonly outcomes: readonly FleetOutcome[] };

/** `promise`, or a rejection saying `what` did not happen within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what()} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** One child: its process, its two messages (rejected if it exits first), its output's tail. */
class FleetChild {
  readonly process: ChildProcess;
  readonly ready: Promise<void>;
  readonly outcomes: Promise<readonly FleetOutcome[]>;
  readonly exited: Promise<void>;
  #output = '';

  /** Forks `script` (the compiled {@link CHILD}) with `config`. */
  constructor(script: string, config: FleetChildConfig) {
    const proc = fork(script, [JSON.stringify(config)], {
      execArgv: [...FIXTURE_EXEC_ARGV],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.process = proc;
    const keep = (chunk: Buffer): void => {
      this.#output = (this.#output + String(chunk)).slice(-4000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    const early = this.exited.then(() => {
      throw new Error(`fleet process ${proc.pid} exited early:\n${this.#output}`);
    });
    // Neither message may be awaited (a child that never got ready is never let go).
    early.catch(() => undefined);
    const message = <T extends FleetChildMessage['type']>(type: T) =>
      Promise.race([
        new Promise<Extract<FleetChildMessage, { type: T }>>((resolve) => {
          const on = (m: FleetChildMessage): void => {
            if (m.type !== type) return;
            proc.off('message', on);
            resolve(m as Extract<FleetChildMessage, { type: T }>);
          };
          proc.on('message', on);
        }),
        early,
      ]);
    this.ready = message('ready').then(() => undefined);
    this.outcomes = message('outcomes').then((m) => m.outcomes);
    this.ready.catch(() => undefined);
    this.outcomes.catch(() => undefined);
  }

  /** Why it failed, in an error: what it did not do, and the tail of its output. */
  missed(what: string): string {
    return `fleet process ${this.process.pid} sent no ${what}:\n${this.#output}`;
  }

  send(message: FleetParentMessage): void {
    if (this.process.connected) this.process.send(message);
  }
}

/**
 * A fleet's starts split between child processes (`runFleetProcess.ts`, compiled together with
 * the harness module it imports, so that a child holds one copy of each package: plain Node,
 * the workspace's packages as compiled in their `dist/`): each
 * creates the providers of its share with the harness module, then all are let go at once and
 * report each start's outcome; their services stay up until {@link close}.
 */
export class FleetProcesses {
  readonly #children: readonly FleetChild[];

  private constructor(children: readonly FleetChild[]) {
    this.#children = children;
  }

  /** The children's process ids. */
  get pids(): readonly number[] {
    return this.#children.map((c) => c.process.pid ?? -1);
  }

  /**
   * Forks `count` children for starts `0..starts-1` (start `i` in child `i % count`) and waits
   * until each has created its providers.
   */
  static async start(
    count: number,
    starts: number,
    config: Omit<FleetChildConfig, 'indexes'>,
  ): Promise<FleetProcesses> {
    const all = Array.from({ length: starts }, (_, i) => i);
    const [script = '', harness = ''] = await compiledFixtures([CHILD, config.module]);
    const module = pathToFileURL(harness).href;
    const children = Array.from(
      { length: count },
      (_, c) =>
        new FleetChild(script, { ...config, module, indexes: all.filter((i) => i % count === c) }),
    );
    const fleet = new FleetProcesses(children);
    try {
      await Promise.all(
        children.map((c) => within(c.ready, READY_WITHIN_MS, () => c.missed('ready'))),
      );
    } catch (error) {
      await fleet.close();
      throw error;
    }
    return fleet;
  }

  /**
   * Lets every start go at once and resolves with their outcomes (by start number), times in ms
   * since this process let them go; at most `timeoutMs`.
   */
  async go(timeoutMs: number): Promise<FleetOutcome[]> {
    const goAtMs = fleetClockMs();
    for (const c of this.#children) c.send({ type: 'go', goAtMs });
    const outcomes = await Promise.all(
      this.#children.map((c) => within(c.outcomes, timeoutMs, () => c.missed('outcomes'))),
    );
    return outcomes.flat().sort((a, b) => a.index - b.index);
  }

  /** Tells each child to close its services and waits for it to exit (killed after a bound). */
  async close(): Promise<void> {
    await Promise.all(
      this.#children.map(async (c) => {
        c.send({ type: 'close' });
        try {
          await within(c.exited, CLOSED_WITHIN_MS, () => 'exit');
        } catch {
          c.process.kill('SIGKILL');
        }
      }),
    );
  }
}
