import { VestaError } from '../errors/VestaError.js';
import { timeSourceWithClock, type Clock, type TimeSource } from './TimeSource.js';

/** Turns the wall clock into the time field of a layout (units since the epoch), and back. */
export class Timer {
  readonly maxTime: number;
  readonly clock: Clock;
  readonly time: TimeSource;

  constructor(
    readonly epochMs: number,
    readonly unitMs: number,
    timeBits: number,
    time: TimeSource | Clock,
  ) {
    this.maxTime = 2 ** timeBits - 1;
    this.time = typeof time === 'function' ? timeSourceWithClock(time) : time;
    this.clock = this.time.now;
  }

  now(): number {
    const ms = this.clock() - this.epochMs;
    return this.unitMs === 1 ? ms : Math.floor(ms / this.unitMs);
  }

  /** The wall clock; INVALID_OPTIONS unless it returns Unix ms. */
  unixNow(): number {
    const ms = this.clock();
    if (Number.isSafeInteger(ms)) return ms;
    throw new VestaError('INVALID_OPTIONS', `the clock must return Unix ms, got ${String(ms)}`);
  }

  toUnixMs(time: number): number {
    return this.epochMs + time * this.unitMs;
  }

  fromUnixMs(ms: number): number {
    return Math.floor((ms - this.epochMs) / this.unitMs);
  }

  get expiryDate(): Date {
    return new Date(this.toUnixMs(this.maxTime + 1));
  }

  msUntil(time: number): number {
    return Math.max(0, this.toUnixMs(time) - this.clock());
  }

  /** TIME_OVERFLOW or CLOCK_BEFORE_EPOCH when `time` cannot be written into the field. */
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
