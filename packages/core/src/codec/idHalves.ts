/**
 * A 64-bit id split into its two 32-bit halves, and joined again, through one shared 8-byte
 * cell: a typed-array store and two loads instead of four bigint operations (each of which
 * allocates). Synchronous use only: {@link splitId} then read {@link ID_HALVES} at once.
 */
const cell = new BigUint64Array(1);
const halves = new Uint32Array(cell.buffer);
const LOW = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;
const HIGH = 1 - LOW;

/** The halves {@link splitId} wrote last. */
export const ID_HALVES = {
  get high(): number {
    return halves[HIGH] as number;
  },
  get low(): number {
    return halves[LOW] as number;
  },
};

/** Splits `id` (0 to 2^64 - 1) into {@link ID_HALVES}. */
export function splitId(id: bigint): void {
  cell[0] = id;
}

/** The id of two 32-bit halves (each 0 to 2^32 - 1). */
export function joinId(high: number, low: number): bigint {
  halves[HIGH] = high;
  halves[LOW] = low;
  return cell[0] as bigint;
}
