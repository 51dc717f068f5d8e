import { VestaError, type VestaErrorCode } from '@vesta/core';
import { codeOfWire, wireOf } from '@vesta/core/kit';
import { allocFrame } from './Frame.js';
import { Op, HEADER_BYTES, MAX_ERROR_MESSAGE_BYTES } from './protocolConstants.js';

/** How an OVERLOADED message ends when the server knows when to come back (PROTOCOL.md). */
const RETRY_AFTER = / \(retry after (\d+) ms\)$/;

/** An error frame: u16 wire number of the code, u16 length, message (UTF-8, at most 1024 bytes). */
export const ErrorMessage = {
  encode(requestId: number, code: VestaErrorCode, message: string, retryAfterMs?: number): Buffer {
    const suffix =
      code === 'OVERLOADED' && retryAfterMs !== undefined
        ? ` (retry after ${Math.max(0, Math.ceil(retryAfterMs))} ms)`
        : '';
    const room = MAX_ERROR_MESSAGE_BYTES - suffix.length;
    let text = Buffer.from(message, 'utf8').subarray(0, room);
    if (suffix !== '') text = Buffer.concat([text, Buffer.from(suffix, 'ascii')]);
    const frame = allocFrame(requestId, Op.ERROR, 4 + text.length);
    frame.writeUInt16BE(wireOf(code), HEADER_BYTES);
    frame.writeUInt16BE(text.length, HEADER_BYTES + 2);
    text.copy(frame, HEADER_BYTES + 4);
    return frame;
  },

  decode(payload: Buffer): VestaError {
    if (payload.length < 4 || payload.length !== 4 + payload.readUInt16BE(2)) {
      return new VestaError('PROTOCOL_ERROR', 'the server sent a malformed error frame');
    }
    const wire = payload.readUInt16BE(0);
    const message = payload.toString('utf8', 4);
    const code = codeOfWire(wire);
    if (code === undefined) {
      return new VestaError(
        'INTERNAL_ERROR',
        `the server answered with unknown error number ${wire}: ${message}`,
        { details: { wire } },
      );
    }
    const retryAfter = code === 'OVERLOADED' ? RETRY_AFTER.exec(message) : null;
    return new VestaError(code, message, {
      details:
        retryAfter === null
          ? { remote: true }
          : { remote: true, retryAfterMs: Number(retryAfter[1]) },
    });
  },
} as const;
