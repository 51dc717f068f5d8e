import type { VestaError } from '@vesta/core';
import { describe, expect, it } from 'vitest';
import { allocFrame } from './Frame.js';
import { FrameDecoder } from './FrameDecoder.js';
import { HEADER_BYTES } from './protocolConstants.js';

function frame(requestId: number, op: number, payload: number[]): Buffer {
  const f = allocFrame(requestId, op, payload.length);
  Buffer.from(payload).copy(f, HEADER_BYTES);
  return f;
}

describe('FrameDecoder', () => {
  it('returns frames split at every byte boundary whole and in order', () => {
    const bytes = Buffer.concat([
      frame(1, 2, [0, 0, 0, 1]),
      frame(0xffffffff, 7, []),
      frame(3, 3, [1, 2, 3, 4, 5, 6, 7, 8]),
    ]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const decoder = new FrameDecoder(1024);
      const frames = [];
      for (const part of [bytes.subarray(0, cut), bytes.subarray(cut)]) {
        decoder.push(part);
        for (let f = decoder.next(); f !== undefined; f = decoder.next()) frames.push(f);
      }
      expect(frames.map((f) => [f.requestId, f.op, [...f.payload]])).toEqual([
        [1, 2, [0, 0, 0, 1]],
        [0xffffffff, 7, []],
        [3, 3, [1, 2, 3, 4, 5, 6, 7, 8]],
      ]);
      expect(decoder.buffered).toBe(0);
    }
  });

  it('rejects a length above the limit as soon as the length field is in', () => {
    const decoder = new FrameDecoder(64);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(61);
    decoder.push(header);
    expect(() => decoder.next()).toThrow(
      expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }) as VestaError,
    );
  });

  it.each([0, 1, 4])('rejects a length of %i, shorter than the header', (length) => {
    const decoder = new FrameDecoder(64);
    const bytes = Buffer.alloc(12);
    bytes.writeUInt32BE(length);
    decoder.push(bytes);
    expect(() => decoder.next()).toThrow(
      expect.objectContaining({ code: 'PROTOCOL_ERROR' }) as VestaError,
    );
  });

  it('waits for the rest of a truncated frame', () => {
    const decoder = new FrameDecoder(64);
    decoder.push(frame(9, 2, [0, 0, 0, 5]).subarray(0, 10));
    expect(decoder.next()).toBeUndefined();
    expect(decoder.buffered).toBe(10);
  });

  it('describes each frame in place when stepped with advance, fields read from the payload', () => {
    const id = 0x0123_4567_89ab_cdefn;
    const eight = Buffer.alloc(8);
    eight.writeBigUInt64BE(id);
    const bytes = Buffer.concat([frame(5, 0x82, [0, 0, 0, 1, ...eight]), frame(6, 7, [])]);
    const decoder = new FrameDecoder(1024);
    decoder.push(bytes.subarray(0, 7));
    expect(decoder.advance()).toBe(false);
    decoder.push(bytes.subarray(7));
    expect(decoder.advance()).toBe(true);
    expect([decoder.requestId, decoder.op, decoder.payloadLength]).toEqual([5, 0x82, 12]);
    expect(decoder.payloadU32(0)).toBe(1);
    expect(decoder.payloadU64(4)).toBe(id);
    expect([...decoder.payload()]).toEqual([0, 0, 0, 1, ...eight]);
    expect(decoder.advance()).toBe(true);
    expect([decoder.requestId, decoder.op, decoder.payloadLength]).toEqual([6, 7, 0]);
    expect(decoder.advance()).toBe(false);
    expect(decoder.buffered).toBe(0);
  });
});
