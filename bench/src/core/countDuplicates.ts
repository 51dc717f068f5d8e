/** What the duplicate check found in a run of ids. */
export interface DuplicateReport {
  readonly ids: number;
  /** Ids equal to an earlier one (n copies of a value count n - 1). */
  readonly duplicates: number;
  /** Places where an id is not greater than the one before it, in issue order. */
  readonly orderBreaks: number;
}

/**
 * Counts duplicates by sorting a copy as unsigned 64-bit values and comparing neighbours, and
 * counts breaks of strict order in issue order. The ids stay bigints throughout.
 */
export function countDuplicates(ids: BigUint64Array): DuplicateReport {
  let orderBreaks = 0;
  for (let i = 1; i < ids.length; i++) if (ids[i]! <= ids[i - 1]!) orderBreaks++;
  const sorted = ids.slice().sort();
  let duplicates = 0;
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) duplicates++;
  return { ids: ids.length, duplicates, orderBreaks };
}
