/** The state worker threads share to issue under one machine id: hand `buffer` to each worker. */
export interface SharedIdState {
  readonly buffer: SharedArrayBuffer;
}

const STATE_BYTES = 8;
const MARK_CELLS = 6;
const SHARED_ID_STATE_BYTES = STATE_BYTES + MARK_CELLS * 4;

export function createSharedIdState(): SharedIdState {
  return { buffer: new SharedArrayBuffer(SHARED_ID_STATE_BYTES) };
}

export function sequenceCell(buffer: ArrayBufferLike): BigInt64Array {
  return new BigInt64Array(buffer, 0, 1);
}

export function markCells(buffer: ArrayBufferLike): Int32Array {
  return new Int32Array(buffer, STATE_BYTES, MARK_CELLS);
}

export const MarkCell = {
  /** The durable mark, in seconds since the epoch. */
  MARK: 0,
  /** The mark writer lock: 1 while a thread writes the mark (or its owner closes). */
  WRITER: 1,
  STARTED: 2,
  FENCE: 3,
  IDENTITY: 4,
} as const;

export const SharedFence = { OPEN: 0, LEASE_LOST: 1, CLOSED: 2 } as const;
