/** A range `[start, end)` of one key's numbers. */
export interface SegmentRange {
  readonly start: bigint;
  readonly end: bigint;
}

/** What a claim answers: the range and the key's stored step (the engine's smallest). */
export interface SegmentClaim extends SegmentRange {
  readonly keyStep: number;
  /** A range handed back by a clean close, not a fresh one off the key's max. */
  readonly handedBack: boolean;
}

/** One key as a store lists it. */
export interface SegmentKeyInfo {
  readonly key: string;
  /** The end of the last range claimed: the next fresh range starts here. */
  readonly max: bigint;
  readonly step: number;
}

/** What a new key is created with. */
export interface SegmentKeyOptions {
  /** The size of a fresh range, the smallest the engine asks for. */
  readonly step: number;
  /** The key's first number (0 to 2^63 - 2, with `start + step` at most 2^63 - 1). @default 0n */
  readonly start?: bigint;
}

/** What a claim asks for. */
export interface SegmentClaimRequest {
  /** The size of a fresh range. @default the key's stored step */
  readonly step?: number;
  /** Only a handed-back range starting at or above this is taken, so numbers keep increasing. @default 0n */
  readonly minStart?: bigint;
}

/**
 * Where segments come from: a few atomic round trips (Go's `database/sql/driver` model); the
 * buffering and step rules live once, above it. A claim of a key never created is
 * SEGMENT_KEY_UNKNOWN; a store that does not answer COORDINATOR_UNAVAILABLE.
 */
export interface SegmentStore {
  /**
   * Claims the next range of `key`: the lowest handed-back range at or above `minStart` (removed),
   * else `[max, max + step)` with `max` raised by `step`.
   */
  claim(key: string, request?: SegmentClaimRequest): Promise<SegmentClaim>;
  /** Gives back an unused range (a clean close), for the next claim to take first. */
  handBack(key: string, range: SegmentRange): Promise<void>;
  /** Creates `key`; false (nothing changed) when it exists. */
  createKey(key: string, options: SegmentKeyOptions): Promise<boolean>;
  /** Sets the stored step of `key` (SEGMENT_KEY_UNKNOWN when it does not exist). */
  setStep(key: string, step: number): Promise<void>;
  /** Every key, by name. */
  keys(): Promise<SegmentKeyInfo[]>;
  /** Lets go of the connection the store opened (never one the application gave). */
  close(): Promise<void>;
}
