import type { SegmentWorkerProcess } from './SegmentWorkerProcess.js';

/** What a fleet's lives reported, checked: the figures and every rule broken. */
export interface FleetFindings {
  /** Numbers reported per key, every life together. */
  readonly reported: ReadonlyMap<string, number>;
  /** Numbers reported a second time (by another life or the same), every key together. */
  readonly duplicates: number;
  /** The first 20 of them (`order: 1200 (again in life 3)`). */
  readonly duplicateSamples: readonly string[];
  /** A life's numbers of a key that did not go up (`life 3, order: 1200 after 1300`). */
  readonly notIncreasing: readonly string[];
}

/**
 * Checks everything the lives of a fleet reported: no number of a key reported twice over every
 * life, and each life's numbers of each key strictly increasing in the order served.
 */
export function fleetFindings(
  lives: readonly SegmentWorkerProcess[],
  keys: readonly string[],
): FleetFindings {
  const reported = new Map<string, number>();
  let duplicates = 0;
  const duplicateSamples: string[] = [];
  const notIncreasing: string[] = [];
  for (const key of keys) {
    const seen = new Set<bigint>();
    let count = 0;
    for (const [l, life] of lives.entries()) {
      let last: bigint | undefined;
      for (const n of life.numbers.get(key) ?? []) {
        count++;
        if (seen.has(n)) {
          duplicates++;
          if (duplicateSamples.length < 20)
            duplicateSamples.push(`${key}: ${n} (again in life ${l})`);
        }
        seen.add(n);
        if (last !== undefined && n <= last && notIncreasing.length < 20)
          notIncreasing.push(`life ${l}, ${key}: ${n} after ${last}`);
        last = n;
      }
    }
    reported.set(key, count);
  }
  return { reported, duplicates, duplicateSamples, notIncreasing };
}
