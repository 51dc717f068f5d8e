import { describe, expect, it } from 'vitest';
import { checkPayloadBytes } from './payloadFields.js';

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
