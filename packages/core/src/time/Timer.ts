import { VestaError } from '../errors/VestaError.js';
import type { Clock } from './Clock.js';
import { timeSourceWithClock, type TimeSource } from './TimeSource.js';

/**
 * Turns the wall clock into the time field of a layout: units (seconds or milliseconds) since
 * the epoch, and back into dates. Knows when the field runs out.
 */
export class Timer {
  readonly epochMs: number;
  readonly unitMs: number;
  /** The largest time the field holds. */
  readonly maxTime: number;
  /** The wall clock (`time.now`). */
  readonly clock: Clock;
  /** Where the wall clock, monotonic time and timers come from. */
  readonly time: TimeSource;

  /** @param time a time source, or a bare wall clock (monotonic time and timers stay the system's) */
  constructor(epochMs: number, unitMs: number, timeBits: number, time: TimeSource | Clock) {
    this.epochMs = epochMs;
    this.unitMs = unitMs;
    this.maxTime = 2 ** timeBits - 1;
    this.time = typeof time === 'function' ? timeSourceWithClock(time) : time;
    this.clock = this.time.now;
  }

  /** The current time unit since the epoch (negative before the epoch). */
  now(): number {
    const ms = this.clock() - this.epochMs;
    return this.unitMs === 1 ? ms : Math.floor(ms / this.unitMs);
  }

  /** The Unix milliseconds at which a time unit starts. */
  toUnixMs(time: number): number {
    return this.epochMs + time * this.unitMs;
  }

  /** The time unit that holds a Unix millisecond. */
  fromUnixMs(ms: number): number {
    return Math.floor((ms - this.epochMs) / this.unitMs);
  }

  /** The date at which a time unit starts. */
  toDate(time: number): Date {
    return new Date(this.toUnixMs(time));
  }

  /** The first instant the time field cannot hold: past it the service refuses to issue. */
  get expiryDate(): Date {
    return this.toDate(this.maxTime + 1);
  }

  /** Milliseconds until the clock reaches the start of `time` (0 when it already has). */
  msUntil(time: number): number {
    return Math.max(0, this.toUnixMs(time) - this.clock());
  }

  /** Throws TIME_OVERFLOW or CLOCK_BEFORE_EPOCH when `time` cannot be written into the field. */
  check(time: number): void {
    if (time > this.maxTime) {
      throw new VestaError(
        'TIME_OVERFLOW',
        `the time field ran out at ${this.expiryDate.toISOString()}; refusing to wrap`,
        { details: { expiry: this.expiryDate.toISOString() } },
      );
    }
    if (time < 0) {
      throw new VestaError(
        'CLOCK_BEFORE_EPOCH',
        `the clock reads ${new Date(this.clock()).toISOString()}, before the epoch ${new Date(this.epochMs).toISOString()}`,
      );
    }
  }
}
