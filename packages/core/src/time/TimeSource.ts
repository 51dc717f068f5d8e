/** A wall clock: Unix milliseconds. Injected so tests can step it; defaults to `Date.now`. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** A pending timer of a {@link TimeSource}. */
export interface TimerHandle {
  cancel(): void;
  /** Lets the process exit while this timer is pending. */
  unref(): TimerHandle;
}

/** Where every part reads the wall clock, a monotonic clock, and sets timers (tests inject one). */
export interface TimeSource {
  readonly now: Clock;
  /** Milliseconds on a clock that never steps back. */
  monotonic(): number;
  /** Calls `callback` once, `ms` monotonic milliseconds from now (at once for 0 or less). */
  setTimer(callback: () => void, ms: number): TimerHandle;
}

function nodeTimer(callback: () => void, ms: number): TimerHandle {
  const timer = setTimeout(callback, Math.max(0, ms));
  const handle: TimerHandle = {
    cancel: () => clearTimeout(timer),
    unref: () => {
      timer.unref();
      return handle;
    },
  };
  return handle;
}

const withClock = (now: Clock): TimeSource =>
  Object.freeze({ now, monotonic: () => performance.now(), setTimer: nodeTimer });

export const systemTimeSource: TimeSource = withClock(systemClock);

/** A time source whose wall clock is `clock`; monotonic time and timers stay the system's. */
export function timeSourceWithClock(clock: Clock): TimeSource {
  return clock === systemClock ? systemTimeSource : withClock(clock);
}

/** Resolves after `ms` monotonic milliseconds of `time` (a timer, never a busy wait). */
export function sleepOn(time: TimeSource, ms: number): Promise<void> {
  return new Promise((resolve) => {
    time.setTimer(resolve, ms);
  });
}

/** Resolves after `ms` milliseconds (a timer, never a busy wait). */
export const sleep = (ms: number): Promise<void> => sleepOn(systemTimeSource, ms);
