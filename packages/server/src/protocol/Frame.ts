import { HEADER_BYTES, LENGTH_OVERHEAD } from './protocolConstants.js';

/** One decoded frame. `payload` is a view into the received bytes: copy it to keep it. */
export interface Frame {
  readonly requestId: number;
  readonly op: number;
  readonly payload: Buffer;
}

/** A frame with its header (u32 length of the rest, u32 request id, u8 op) and room for the payload. */
export function allocFrame(requestId: number, op: number, payloadLength: number): Buffer {
  const frame = Buffer.allocUnsafe(HEADER_BYTES + payloadLength);
  frame.writeUInt32BE(LENGTH_OVERHEAD + payloadLength, 0);
  frame.writeUInt32BE(requestId >>> 0, 4);
  frame[8] = op;
  return frame;
}
