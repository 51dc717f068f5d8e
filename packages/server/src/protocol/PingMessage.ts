import { VestaError } from '@vesta/core';
import { allocFrame } from './Frame.js';
import { Op, RESPONSE_BIT, HEADER_BYTES, MAX_PING_BYTES } from './protocolConstants.js';

/** PING: up to 64 opaque bytes, echoed back in the answer. */
export const PingMessage = {
  encodeRequest(requestId: number, data: Buffer = Buffer.alloc(0)): Buffer {
    if (data.length > MAX_PING_BYTES)
      throw new VestaError('INVALID_ARGUMENT', `ping data must be at most ${MAX_PING_BYTES} bytes`);
    const frame = allocFrame(requestId, Op.PING, data.length);
    data.copy(frame, HEADER_BYTES);
    return frame;
  },

  decodeRequest(payload: Buffer): Buffer {
    if (payload.length > MAX_PING_BYTES)
      throw new VestaError('PROTOCOL_ERROR', `ping payload exceeds ${MAX_PING_BYTES} bytes`);
    return payload;
  },

  encodeResponse(requestId: number, data: Buffer): Buffer {
    const frame = allocFrame(requestId, Op.PING | RESPONSE_BIT, data.length);
    data.copy(frame, HEADER_BYTES);
    return frame;
  },
} as const;
