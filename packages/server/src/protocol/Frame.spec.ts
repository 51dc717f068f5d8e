import { describe, expect, it } from 'vitest';
import {
  checkPayloadBytes,
  encodeU64List,
  readListCount,
  readSafeU64,
  writeSafeU64,
} from './Frame.js';
import { HEADER_BYTES } from './protocolConstants.js';

describe('checkPayloadBytes', () => {
  it('accepts a payload of exactly the size', () => {
    expect(() => checkPayloadBytes(Buffer.alloc(9), 9, 'transtime payload')).not.toThrow();
  });

  it.each([0, 8, 10])('refuses %d bytes with PROTOCOL_ERROR naming what and the size', (n) => {
    expect(() => checkPayloadBytes(Buffer.alloc(n), 9, 'transtime payload')).toThrow(
      expect.objectContaining({
        code: 'PROTOCOL_ERROR',
        message: `transtime payload must be 9 bytes, got ${n}`,
      }),
    );
  });
});

describe('readListCount', () => {
  it('reads the count of a list encodeU64List wrote', () => {
    const frame = encodeU64List(7, 0x81, [1n, 2n, 2n ** 64n - 1n]);
    const payload = frame.subarray(HEADER_BYTES);
    expect(readListCount(payload, 8, 'generate answer')).toBe(3);
    expect(payload.readBigUInt64BE(4 + 16)).toBe(2n ** 64n - 1n);
  });

  it('refuses a payload shorter than its count', () => {
    expect(() => readListCount(Buffer.from([0, 0]), 8, 'generate answer')).toThrow(
      expect.objectContaining({ code: 'PROTOCOL_ERROR', message: 'generate answer is truncated' }),
    );
  });

  it('refuses a payload whose length does not match its count', () => {
    const payload = Buffer.alloc(4 + 16 + 1);
    payload.writeUInt32BE(1, 0);
    expect(() => readListCount(payload, 16, 'generate-uuid answer')).toThrow(
      expect.objectContaining({
        code: 'PROTOCOL_ERROR',
        message: 'generate-uuid answer length does not match its count',
      }),
    );
  });
});

describe('writeSafeU64', () => {
  it.each([0, 1, 2 ** 32, Number.MAX_SAFE_INTEGER])(
    'writes %d back as readSafeU64 reads it',
    (v) => {
      const frame = Buffer.alloc(12);
      expect(writeSafeU64(frame, v, 4, 'time')).toBe(12);
      expect(readSafeU64(frame, 4, 'time')).toBe(v);
    },
  );

  it.each([-1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN, '7' as unknown as number])(
    'refuses %s with INVALID_ARGUMENT naming the field',
    (v) => {
      expect(() => writeSafeU64(Buffer.alloc(8), v, 0, 'seq')).toThrow(
        expect.objectContaining({
          code: 'INVALID_ARGUMENT',
          message: expect.stringMatching(/^seq must be a whole number of 0 or more/),
        }),
      );
    },
  );
});
