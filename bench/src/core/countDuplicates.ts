/** What the duplicate check found in a run of ids. */
export interface DuplicateReport {
  readonly ids: number;
  /** Ids equal to an earlier one (n copies of a value count n - 1). */
  readonly duplicates: number;
  /** Places where an id is not greater than the one before it, in issue order. */
  readonly orderBreaks: number;
}

/** How many ids are not greater than the one before them. */
function countNotIncreasing(ids: BigUint64Array): number {
  let count = 0;
  let previous: bigint | undefined;
  for (const id of ids) {
    if (previous !== undefined && id <= previous) count++;
    previous = id;
  }
  return count;
}

/**
 * Counts duplicates by sorting a copy as unsigned 64-bit values and comparing neighbours, and
 * counts breaks of strict order in issue order. The ids stay bigints throughout.
 */
export function countDuplicates(ids: BigUint64Array): DuplicateReport {
  const sorted = ids.slice().sort();
  // In sorted order every id that is not greater than its predecessor equals it.
  return {
    ids: ids.length,
    duplicates: countNotIncreasing(sorted),
    orderBreaks: countNotIncreasing(ids),
  };
}
