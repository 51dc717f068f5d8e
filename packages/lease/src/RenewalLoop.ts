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
 * fence). A run that replaced an abandoned one is never abandoned itself: it runs on a fresh
 * connection to its own deadline, so requests slower than two turns (a Redis `WAIT`) still end.
 */
export const ABANDON_AFTER_TURNS = 2;

/**
 * Runs `renew` every `intervalMs` on a {@link TimeSource}, one run at a time: a turn that falls
 * due while the previous run is busy is skipped, and the turn after that abandons the busy run
 * (`abandoned()` is called, the run sees {@link RenewalRun.abandoned}) and starts the next one,
 * which is not abandoned in turn (see {@link ABANDON_AFTER_TURNS}).
 * The timers are unref'd (a lease never keeps a process alive).
 */
export class RenewalLoop {
  readonly #time: TimeSource;
  readonly #intervalMs: number;
  readonly #renew: (run: RenewalRun) => Promise<void>;
  readonly #abandoned: () => void;
  #timer: TimerHandle | undefined;
  /** The run in progress, if any, the turns that fell due while it ran, and whether it replaced an abandoned one. */
  #running: { abandoned: boolean; overdue: number; replacing: boolean } | undefined;
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
      if (busy.overdue < ABANDON_AFTER_TURNS || busy.replacing) return;
      busy.abandoned = true;
      this.#abandoned();
    }
    const run = { abandoned: false, overdue: 0, replacing: busy !== undefined };
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
