import type { SyncIdService } from '../service/IdService.js';

/**
 * For tests: issues `count` ids through `genIdSync` and counts those not above the one before;
 * returns the count and the first and last id.
 */
export function countOrderBreaks(
  service: SyncIdService,
  count: number,
): { breaks: number; first: bigint; last: bigint } {
  const first = service.genIdSync();
  let previous = first;
  let breaks = 0;
  for (let i = 1; i < count; i++) {
    const id = service.genIdSync();
    if (id <= previous) breaks++;
    previous = id;
  }
  return { breaks, first, last: previous };
}
