import { VestaError } from '@vesta/core';
import { allocFrame } from './Frame.js';
import { Op, HEADER_BYTES, MAX_TOKEN_BYTES } from './protocolConstants.js';

/** What a client says first. */
export interface Hello {
  readonly protocolVersion: number;
  readonly token: string | undefined;
}

/** The handshake request: u16 protocol version, u16 token length, token (UTF-8; length 0 = none). */
export const HelloMessage = {
  encode(requestId: number, hello: Hello): Buffer {
    const token = hello.token === undefined ? Buffer.alloc(0) : Buffer.from(hello.token, 'utf8');
    const tooLong = `the auth token must be at most ${MAX_TOKEN_BYTES} bytes`;
    if (token.length > MAX_TOKEN_BYTES) throw new VestaError('INVALID_OPTIONS', tooLong);
    const frame = allocFrame(requestId, Op.HELLO, 4 + token.length);
    frame.writeUInt16BE(hello.protocolVersion, HEADER_BYTES);
    frame.writeUInt16BE(token.length, HEADER_BYTES + 2);
    token.copy(frame, HEADER_BYTES + 4);
    return frame;
  },

  decode(payload: Buffer): Hello {
    if (payload.length < 4) throw new VestaError('PROTOCOL_ERROR', 'hello payload is truncated');
    const tokenLength = payload.readUInt16BE(2);
    const mismatch = 'hello payload length does not match its token length';
    if (tokenLength > MAX_TOKEN_BYTES || payload.length !== 4 + tokenLength)
      throw new VestaError('PROTOCOL_ERROR', mismatch);
    return {
      protocolVersion: payload.readUInt16BE(0),
      token: tokenLength === 0 ? undefined : payload.toString('utf8', 4, 4 + tokenLength),
    };
  },
} as const;
