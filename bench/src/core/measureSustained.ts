import type { SyncIdService } from '@vesta/core';

/** How a sustained run calls the service. */
export type SustainedCall = 'genIdSync' | 'genIds(1000)';

export interface SustainedResult {
  readonly units: number;
  readonly unitMs: number;
  /** Ids the layout allows per unit (the sequence's size). */
  readonly perUnit: number;
  /** Ids issued with a time inside the measured units. */
  readonly ids: number;
  /** `ids` over the layout's capacity for those units. */
  readonly fraction: number;
  /** Places where an id was not greater than the one before it (must be 0). */
  readonly orderBreaks: number;
}

/** Spins until the clock enters a new time unit of the service; returns that unit. */
function nextUnit(epochMs: number, unitMs: number): number {
  const first = Math.floor((Date.now() - epochMs) / unitMs);
  for (;;) {
    const unit = Math.floor((Date.now() - epochMs) / unitMs);
    if (unit !== first) return unit;
  }
}

/**
 * Issues ids as fast as the service allows over exactly `units` whole time units, starting at
 * a unit boundary, and counts those whose time lies inside them. Aligning matters for
 * max-peak: a 5 s window that starts mid-second touches six seconds, and the first one's
 * whole sequence can be issued in its tail, which would overstate the rate by up to 20%.
 */
export async function measureSustained(
  service: SyncIdService,
  call: SustainedCall,
  units: number,
): Promise<SustainedResult> {
  const info = service.info();
  const perUnit = 2 ** info.layout.seqBits;
  const start = nextUnit(info.epochMs, info.unitMs);
  // The smallest id of the first unit past the window: every id below it lies inside.
  const limit = service.makeId({ time: start + units, seq: 0, machine: 0 });
  let ids = 0;
  let orderBreaks = 0;
  let last = 0n;
  if (call === 'genIdSync') {
    for (;;) {
      const id = service.genIdSync();
      if (id >= limit) break;
      if (id <= last) orderBreaks++;
      last = id;
      ids++;
    }
  } else {
    let done = false;
    while (!done) {
      const batch = await service.genIds(1000);
      for (const id of batch) {
        if (id >= limit) {
          done = true;
          break;
        }
        if (id <= last) orderBreaks++;
        last = id;
        ids++;
      }
    }
  }
  return {
    units,
    unitMs: info.unitMs,
    perUnit,
    ids,
    fraction: ids / (units * perUnit),
    orderBreaks,
  };
}
