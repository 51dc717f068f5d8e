import { VestaError, type IdServiceInfo } from '@vesta/core';
import { allocFrame } from './Frame.js';
import { Op, RESPONSE_BIT, HEADER_BYTES } from './protocolConstants.js';

/** INFO: empty request; answer the server's IdServiceInfo as UTF-8 JSON (it holds no ids). */
export const InfoMessage = {
  encodeRequest(requestId: number): Buffer {
    return allocFrame(requestId, Op.INFO, 0);
  },

  decodeRequest(payload: Buffer): void {
    if (payload.length !== 0) throw new VestaError('PROTOCOL_ERROR', 'info takes no payload');
  },

  encodeResponse(requestId: number, info: IdServiceInfo): Buffer {
    const json = Buffer.from(JSON.stringify(info), 'utf8');
    const frame = allocFrame(requestId, Op.INFO | RESPONSE_BIT, json.length);
    json.copy(frame, HEADER_BYTES);
    return frame;
  },

  decodeResponse(payload: Buffer): IdServiceInfo {
    try {
      const info = JSON.parse(payload.toString('utf8')) as unknown;
      if (typeof info !== 'object' || info === null) throw new TypeError('not an object');
      return info as IdServiceInfo;
    } catch (cause) {
      throw new VestaError('PROTOCOL_ERROR', 'info answer is not JSON', { cause });
    }
  },
} as const;
