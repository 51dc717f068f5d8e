import { VestaError } from '../errors/VestaError.js';
import type { Timer } from '../time/Timer.js';
import type { Claim } from './Claim.js';

/**
 * The heart of every populator: from the last time used and the next free sequence number,
 * claim up to `max` sequence numbers. Writes the claim into `out` and returns true; returns
 * false (with `out.time` set to the unit to wait for) when the unit's sequence is used up.
 *
 * - A new unit starts the sequence at 0.
 * - When the clock reads an earlier unit than the last one used, the step back is absorbed
 *   within `toleranceMs` by staying in the last unit; beyond it, CLOCK_MOVED_BACKWARDS.
 * - A used-up unit never hands out its sequence again: the caller waits for a later unit.
 *   (Java Vesta forgets to advance here and issues a duplicate.)
 */
export function planClaim(
  timer: Timer,
  maxSeq: number,
  toleranceMs: number,
  lastTime: number,
  nextSeq: number,
  max: number,
  out: Claim,
): boolean {
  const nowMs = timer.clock();
  const now = timer.fromUnixMs(nowMs);
  out.behindMs = 0;
  if (now > lastTime) {
    timer.check(now);
    out.time = now;
    out.seq = 0;
    out.count = max <= maxSeq ? max : maxSeq + 1;
    return true;
  }
  if (now < lastTime) {
    timer.check(now);
    const behindMs = timer.toUnixMs(lastTime) - nowMs;
    if (behindMs > toleranceMs) {
      throw new VestaError(
        'CLOCK_MOVED_BACKWARDS',
        `the clock moved back by ${behindMs} ms, more than the tolerance of ${toleranceMs} ms`,
        { details: { behindMs, toleranceMs } },
      );
    }
    out.behindMs = behindMs;
  }
  if (nextSeq > maxSeq) {
    out.time = lastTime + 1;
    out.seq = 0;
    out.count = 0;
    return false;
  }
  const left = maxSeq + 1 - nextSeq;
  out.time = lastTime;
  out.seq = nextSeq;
  out.count = max <= left ? max : left;
  return true;
}
