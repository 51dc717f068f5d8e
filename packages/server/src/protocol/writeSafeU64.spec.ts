import { describe, expect, it } from 'vitest';
import { readSafeU64, writeSafeU64 } from './payloadFields.js';

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
