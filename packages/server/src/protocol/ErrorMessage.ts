import { ERROR_CODES, VestaError, type VestaErrorCode } from '@vesta/core';
import { allocFrame } from './Frame.js';
import { Op } from './Op.js';
import { HEADER_BYTES, MAX_ERROR_MESSAGE_BYTES } from './protocolConstants.js';

const CODE_OF_WIRE: ReadonlyMap<number, VestaErrorCode> = new Map(
  (Object.keys(ERROR_CODES) as VestaErrorCode[]).map((code) => [ERROR_CODES[code].wire, code]),
);

/** The VestaError code of a wire number, or undefined for a number this version does not know. */
export function codeOfWire(wire: number): VestaErrorCode | undefined {
  return CODE_OF_WIRE.get(wire);
}

/**
 * An error frame: u16 wire number of the code (ERROR_CODES[code].wire), u16 message length,
 * message (UTF-8, at most 1024 bytes). Request id 0 answers a frame whose id could not be read.
 */
export const ErrorMessage = {
  encode(requestId: number, code: VestaErrorCode, message: string): Buffer {
    let text = Buffer.from(message, 'utf8');
    if (text.length > MAX_ERROR_MESSAGE_BYTES) text = text.subarray(0, MAX_ERROR_MESSAGE_BYTES);
    const frame = allocFrame(requestId, Op.ERROR, 4 + text.length);
    frame.writeUInt16BE(ERROR_CODES[code].wire, HEADER_BYTES);
    frame.writeUInt16BE(text.length, HEADER_BYTES + 2);
    text.copy(frame, HEADER_BYTES + 4);
    return frame;
  },

  /** The VestaError an error frame carries (same code as on the server). */
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
        {
          details: { wire },
        },
      );
    }
    return new VestaError(code, message, { details: { remote: true } });
  },
} as const;
