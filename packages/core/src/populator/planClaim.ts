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
 * - With `maxLeadMs` > 0, a used-up unit is followed at once by the next one (borrowed, with
 *   `out.borrowed` set) while that unit starts at most `maxLeadMs` after the clock; beyond it,
 *   the caller waits as without a lead.
 * - While leading, the last time used lies ahead of the clock by the lead: only the distance
 *   beyond `maxLeadMs` can be a step back of the clock, and only that part is held against
 *   `toleranceMs` (so the clock may be up to `maxLeadMs + toleranceMs` behind the last time
 *   used). Whatever the clock does, a claim lies after (lastTime, nextSeq): nothing is reissued.
 */
export function planClaim(
  timer: Timer,
  maxSeq: number,
  toleranceMs: number,
  lastTime: number,
  nextSeq: number,
  max: number,
  out: Claim,
  maxLeadMs = 0,
): boolean {
  const nowMs = timer.clock();
  const now = timer.fromUnixMs(nowMs);
  out.behindMs = 0;
  out.borrowed = false;
  out.atMs = nowMs;
  if (now > lastTime) {
    timer.check(now);
    out.time = now;
    out.seq = 0;
    out.count = max <= maxSeq ? max : maxSeq + 1;
    return true;
  }
  if (now < lastTime) {
    timer.check(now);
    const behindMs = timer.toUnixMs(lastTime) - nowMs - maxLeadMs;
    if (behindMs > toleranceMs) {
      throw new VestaError(
        'CLOCK_MOVED_BACKWARDS',
        `the clock moved back by ${behindMs} ms, more than the tolerance of ${toleranceMs} ms`,
        { details: { behindMs, toleranceMs } },
      );
    }
    if (behindMs > 0) out.behindMs = behindMs;
  }
  if (nextSeq > maxSeq) {
    const next = lastTime + 1;
    out.time = next;
    out.seq = 0;
    if (maxLeadMs > 0 && next <= timer.maxTime && timer.toUnixMs(next) - nowMs <= maxLeadMs) {
      out.count = max <= maxSeq ? max : maxSeq + 1;
      out.borrowed = true;
      return true;
    }
    out.count = 0;
    return false;
  }
  const left = maxSeq + 1 - nextSeq;
  out.time = lastTime;
  out.seq = nextSeq;
  out.count = max <= left ? max : left;
  return true;
}
