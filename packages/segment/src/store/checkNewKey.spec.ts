import { codeOf } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { MAX_SEGMENT_NUMBER, checkNewKey } from './SegmentStore.js';

describe('checkNewKey', () => {
  const LAST = 2n ** 63n - 2n;

  it.each([
    [LAST, 1],
    [LAST - 9n, 10],
    [0n, 2147483647],
  ])(
    'takes a key created at %s with step %s: its first range ends at 2^63 - 1 at most',
    (start, step) => {
      expect(checkNewKey('order', { start, step })).toEqual({ start, step });
    },
  );

  it.each([
    [MAX_SEGMENT_NUMBER, 1],
    [LAST, 2],
    [LAST - 8n, 10],
    [-1n, 1],
  ])(
    'refuses a key created at %s with step %s with INVALID_ARGUMENT: it could never serve',
    (start, step) => {
      expect(codeOf(() => checkNewKey('order', { start, step }))).toBe('INVALID_ARGUMENT');
    },
  );
});
