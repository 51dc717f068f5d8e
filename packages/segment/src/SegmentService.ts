/** Dense, increasing numbers per business key (what {@link createSegmentService} returns). */
export interface SegmentService {
  /** The next number of `key`, above every one this service gave for it. */
  segment(key: string): Promise<bigint>;
  /**
   * The next number of `key` without waiting when its buffer holds one; else undefined (then
   * `await segment(key)`). The same sequence as {@link segment}.
   *
   * @example
   * const n = numbers.segmentSync('order') ?? (await numbers.segment('order'));
   */
  segmentSync(key: string): bigint | undefined;
  /** The next `n` numbers of `key`, increasing (1 to `maxBatch`). */
  segments(key: string, n: number): Promise<bigint[]>;
  /** Stops serving and hands unused numbers back to the store (which stays open: yours to close). */
  close(): Promise<void>;
}
