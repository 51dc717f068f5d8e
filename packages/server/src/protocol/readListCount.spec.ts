import { describe, expect, it } from 'vitest';
import { encodeU64List, readListCount } from './payloadFields.js';
import { HEADER_BYTES } from './protocolConstants.js';

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
