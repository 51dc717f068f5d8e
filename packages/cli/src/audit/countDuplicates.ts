/** Values found more than once in a sorted sequence. */
export interface DuplicateCount {
  /** Copies beyond the first, over every value: 0 when every value is unique. */
  readonly count: number;
  readonly distinct: number;
  /** The first `max` of them (in value order), with how often each was found. */
  readonly examples: readonly { readonly value: bigint; readonly times: number }[];
}

/** Values counted between two turns of the event loop. */
const SLICE = 1 << 20;

/**
 * Counts the repeated values of `sorted` (ascending): equal values are neighbours there. Hands
 * the event loop a turn every 2^20 values, so that a signal stops a long merge at once.
 */
export async function countDuplicates(
  sorted: Iterable<bigint>,
  max: number,
): Promise<DuplicateCount> {
  let count = 0;
  let distinct = 0;
  const examples: { value: bigint; times: number }[] = [];
  let previous: bigint | undefined;
  let times = 0;
  const close = (): void => {
    if (times < 2) return;
    count += times - 1;
    distinct++;
    if (examples.length < max) examples.push({ value: previous as bigint, times });
  };
  let slice = SLICE;
  for (const value of sorted) {
    if (--slice === 0) {
      slice = SLICE;
      await new Promise(setImmediate);
    }
    if (value === previous) {
      times++;
      continue;
    }
    close();
    previous = value;
    times = 1;
  }
  close();
  return { count, distinct, examples };
}
