import type { SegmentClaim, SegmentRange } from './SegmentRange.js';

/** One key as a store lists it. */
export interface SegmentKeyInfo {
  readonly key: string;
  /** The end of the last range claimed off the key: the next fresh range starts here. */
  readonly max: bigint;
  /** The key's stored step. */
  readonly step: number;
}

/** What a new key is created with. */
export interface SegmentKeyOptions {
  /** The key's step: the size of a fresh range, the smallest the engine asks for. */
  readonly step: number;
  /** The key's first number (0 to 2^63 - 2, with its first range, `start + step`, at most 2^63 - 1). @default 0n */
  readonly start?: bigint;
}

/** What a claim asks for. */
export interface SegmentClaimRequest {
  /** The size of a fresh range. @default the key's stored step */
  readonly step?: number;
  /**
   * Only a handed-back range starting at or above this is taken (the engine passes the end of its
   * last range, so its numbers keep increasing); a fresh range is always above every range claimed.
   * @default 0n
   */
  readonly minStart?: bigint;
}

/**
 * Where segments come from: a small interface (Go's `database/sql/driver` model) so that another
 * store (ZooKeeper, etcd) is a few methods; the buffering, prefetching and step rules live once,
 * above it, in the engine. Every method is one atomic round trip. Keys are created explicitly:
 * a claim of an unknown key is SEGMENT_KEY_UNKNOWN.
 */
export interface SegmentStore {
  /**
   * Claims the next range of `key`, atomically: the lowest handed-back range at or above
   * `minStart` when there is one (removed from the store), else `[max, max + step)` with `max`
   * raised by `step`. SEGMENT_KEY_UNKNOWN for a key never created; COORDINATOR_UNAVAILABLE when
   * the store does not answer.
   */
  claim(key: string, request?: SegmentClaimRequest): Promise<SegmentClaim>;
  /** Gives back an unused range of `key` (a clean close), for the next claim to take first. */
  handBack(key: string, range: SegmentRange): Promise<void>;
  /**
   * Creates `key` with its step, its first range starting at `start`; false (and nothing
   * changed) when it exists.
   */
  createKey(key: string, options: SegmentKeyOptions): Promise<boolean>;
  /** Sets the stored step of `key` (SEGMENT_KEY_UNKNOWN when it does not exist). */
  setStep(key: string, step: number): Promise<void>;
  /** Every key, by name. */
  keys(): Promise<SegmentKeyInfo[]>;
  /** Lets go of the connection the store opened (never one the application gave). */
  close(): Promise<void>;
}
