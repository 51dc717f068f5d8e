import { allocFrame } from './Frame.js';
import { HEADER_BYTES } from './protocolConstants.js';

/** An answer of u32 count, then count x u64 (GENERATE's ids, SEGMENT's numbers), under `op`. */
export function encodeU64List(requestId: number, op: number, values: readonly bigint[]): Buffer {
  const frame = allocFrame(requestId, op, 4 + 8 * values.length);
  frame.writeUInt32BE(values.length, HEADER_BYTES);
  let at = HEADER_BYTES + 4;
  for (const value of values) at = frame.writeBigUInt64BE(value, at);
  return frame;
}
