/** Formatted business numbers of one key (what {@link createBusinessNumbers} returns). */
export interface BusinessNumbers {
  /** The next number, e.g. `INV-20261127-000042`. SEGMENT_SEQUENCE_OVERFLOW once the period's sequence outgrows `{seq:N}`. */
  next(): Promise<string>;
  /** The next `n` numbers, in order, all of one period. */
  nextMany(n: number): Promise<string[]>;
}
