import type { TimeSource } from '@vesta/core';
import type { TimerHandle } from '@vesta/core';

/** What a run of a {@link RenewalLoop} reads while it runs. */
export interface RenewalRun {
  /**
   * True once the loop gave up on this run (it outlived {@link ABANDON_AFTER_TURNS} turns): it
   * must send nothing more, and whatever it answers is ignored.
   */
  readonly abandoned: boolean;
}

/**
 * The turns a run may stay busy for before the loop gives up on it: a turn that falls due while
 * the run is busy is skipped (a slow coordinator never piles up writes), the next one abandons it
 * and runs at once (a request that hangs, on a silent member, costs two turns at most, never the
 * fence). A hold's requests must therefore answer within two turns when all is well (Redis
 * bounds its `WAIT` to one): one slower every time would be given up every time.
 */
export const ABANDON_AFTER_TURNS = 2;

/**
 * Runs `renew` every `intervalMs` on a {@link TimeSource}, one run at a time: a turn that falls
 * due while the previous run is busy is skipped, and the turn after that abandons the busy run
 * (`abandoned()` is called, the run sees {@link RenewalRun.abandoned}) and starts the next one.
 * The timers are unref'd (a lease never keeps a process alive).
 */
export class RenewalLoop {
  readonly #time: TimeSource;
  readonly #intervalMs: number;
  readonly #renew: (run: RenewalRun) => Promise<void>;
  readonly #abandoned: () => void;
  #timer: TimerHandle | undefined;
  /** The run in progress, if any, and the turns that fell due while it ran. */
  #running: { abandoned: boolean; overdue: number } | undefined;
  /** Every run not settled yet (an abandoned run may still be on its way). */
  readonly #unsettled = new Set<Promise<void>>();
  #stopped = false;
  #turns = 0;

  constructor(
    time: TimeSource,
    intervalMs: number,
    renew: (run: RenewalRun) => Promise<void>,
    abandoned: () => void = () => undefined,
  ) {
    this.#time = time;
    this.#intervalMs = intervalMs;
    this.#renew = renew;
    this.#abandoned = abandoned;
    this.#arm();
  }

  /** Turns that fell due so far, including those skipped while a run was busy. */
  get turns(): number {
    return this.#turns;
  }

  /** Stops for good; runs in progress complete (see {@link settled}). */
  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
  }

  /** Resolves once no run is in progress (at once when none is); never rejects. */
  async settled(): Promise<void> {
    await Promise.all(this.#unsettled);
  }

  #arm(): void {
    if (this.#stopped) return;
    this.#timer = this.#time.setTimer(() => this.#due(), this.#intervalMs).unref();
  }

  #due(): void {
    if (this.#stopped) return;
    this.#arm();
    this.#turns++;
    const busy = this.#running;
    if (busy !== undefined) {
      busy.overdue++;
      if (busy.overdue < ABANDON_AFTER_TURNS) return;
      busy.abandoned = true;
      try {
        this.#abandoned();
      } catch {
        // A hold that cannot reconnect now tries again at its next failed turn.
      }
    }
    const run = { abandoned: false, overdue: 0 };
    this.#running = run;
    const done: Promise<void> = this.#renew(run)
      .catch(() => undefined)
      .finally(() => {
        if (this.#running === run) this.#running = undefined;
        this.#unsettled.delete(done);
      });
    this.#unsettled.add(done);
  }
}
