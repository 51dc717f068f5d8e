/** Dense, increasing numbers per business key (what {@link createSegmentService} returns). */
export interface SegmentService {
  /** The next number of `key`: never handed out before, above every number this service gave for `key`. */
  segment(key: string): Promise<bigint>;
  /**
   * The next number of `key` now, without waiting, when the key's buffer holds one (no caller
   * waiting ahead); else undefined: then `await segment(key)`, which waits for the claim. The
   * same numbers as {@link segment}, in the same order, with the refill ahead of use.
   *
   * @example
   * const n = numbers.segmentSync('order') ?? (await numbers.segment('order'));
   */
  segmentSync(key: string): bigint | undefined;
  /** The next `n` numbers of `key`, increasing (1 to `maxBatch`). */
  segments(key: string, n: number): Promise<bigint[]>;
  /**
   * Stops serving and hands the unused rest of every buffered segment back to the store (the
   * next claim of the key takes it first). The store stays open: it is yours to close.
   */
  close(): Promise<void>;
}
