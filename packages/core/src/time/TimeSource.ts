import { type Clock, systemClock } from './Clock.js';

/** A pending timer of a {@link TimeSource}. */
export interface TimerHandle {
  /** Stops the timer; a no-op once it fired or was cancelled. */
  cancel(): void;
  /** Lets the process exit while this timer is pending (background work: probes, keep-alive, renewals). */
  unref(): TimerHandle;
}

/**
 * Where every part reads time and sets timers: the wall clock (Unix ms, may step back), a
 * monotonic clock (never steps back; bounds waits and deadlines) and timers on it. Injected,
 * never read from globals inside a part, so that tests advance time instead of sleeping
 * (sonyflake's `pseudoSleep` is the model); `ManualTimeSource` in the private test kit is the
 * one tests use.
 */
export interface TimeSource {
  /** The wall clock in Unix ms. */
  readonly now: Clock;
  /** Milliseconds on a clock that never steps back, from an arbitrary origin. */
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

/** The system's time: `Date.now`, `performance.now` and node's timers. */
export const systemTimeSource: TimeSource = Object.freeze({
  now: systemClock,
  monotonic: () => performance.now(),
  setTimer: nodeTimer,
});

/** A time source whose wall clock is `clock`; monotonic time and timers stay the system's. */
export function timeSourceWithClock(clock: Clock): TimeSource {
  if (clock === systemClock) return systemTimeSource;
  return Object.freeze({ now: clock, monotonic: () => performance.now(), setTimer: nodeTimer });
}

/** Resolves after `ms` monotonic milliseconds of `time` (a timer, never a busy wait). */
export function sleepOn(time: TimeSource, ms: number): Promise<void> {
  return new Promise((resolve) => {
    time.setTimer(resolve, ms);
  });
}
