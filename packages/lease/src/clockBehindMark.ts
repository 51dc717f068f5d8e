import { VestaError } from '@vesta/core';

/** CLOCK_BEHIND_HIGH_WATER_MARK: the clock is further behind an id's mark than the wait allows. */
export function clockBehindMark(
  gapMs: number,
  markMs: number,
  machineId: number,
  maxClockWaitMs: number,
  which: string,
): VestaError {
  return new VestaError(
    'CLOCK_BEHIND_HIGH_WATER_MARK',
    `this host's clock is ${gapMs} ms behind ${which} machine id ${machineId}; more than the ${maxClockWaitMs} ms allowed to wait`,
    { details: { gapMs, markMs, machineId } },
  );
}
