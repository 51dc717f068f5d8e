/**
 * The state that several worker threads share to issue ids under one machine id: the packed
 * (time, next sequence) word advanced by compare-and-swap, and the high-water-mark cells.
 * Create it once, hand `buffer` to each worker (postMessage or workerData), and build each
 * worker's service on it.
 */
export interface SharedIdState {
  readonly buffer: SharedArrayBuffer;
}

const STATE_BYTES = 8;
const MARK_CELLS = 6;
/** Bytes of a shared state buffer. */
export const SHARED_ID_STATE_BYTES = STATE_BYTES + MARK_CELLS * 4;

/** A fresh shared state. */
export function createSharedIdState(): SharedIdState {
  return { buffer: new SharedArrayBuffer(SHARED_ID_STATE_BYTES) };
}

/** The packed (time, next sequence) word. */
export function sequenceCell(buffer: ArrayBufferLike): BigInt64Array {
  return new BigInt64Array(buffer, 0, 1);
}

/**
 * The control cells: [durable mark in seconds since the epoch, mark writer lock, started flag,
 * fence (see {@link SharedFence}), and two halves of a digest of the owner's identity].
 */
export function markCells(buffer: ArrayBufferLike): Int32Array {
  return new Int32Array(buffer, STATE_BYTES, MARK_CELLS);
}

/** The index of each control cell in {@link markCells}. */
export const MarkCell = {
  /** The durable mark, in seconds since the epoch. */
  MARK: 0,
  /** The mark writer lock: 1 while a thread writes the mark (or its owner closes). */
  WRITER: 1,
  /** 1 once the owner started. */
  STARTED: 2,
  /** See {@link SharedFence}. */
  FENCE: 3,
  /** The first of the two halves of the owner's identity digest. */
  IDENTITY: 4,
} as const;

/** Values of the fence cell, which the owning service sets for the threads that joined it. */
export const SharedFence = {
  /** The owner's machine-id lease is valid: issue. */
  OPEN: 0,
  /** The owner's lease cannot be confirmed (fenced): stop until it can. */
  LEASE_LOST: 1,
  /** The owner closed and gave its machine id back: stop for good. */
  CLOSED: 2,
} as const;
