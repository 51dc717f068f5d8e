import { describe, expect, it } from 'vitest';
import { VestaError } from '../errors/VestaError.js';
import { checkBatchCount } from './DefaultIdService.js';

describe('checkBatchCount', () => {
  it.each([1, 2, 99, 100])('accepts a count of %d up to a maxBatch of 100', (count) => {
    expect(() => checkBatchCount(count, 100)).not.toThrow();
  });

  it.each([0, -1, 101, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses a count of %d as INVALID_ARGUMENT naming the range',
    (count) => {
      let caught: unknown;
      try {
        checkBatchCount(count, 100);
      } catch (error) {
        caught = error;
      }
      expect(VestaError.is(caught, 'INVALID_ARGUMENT')).toBe(true);
      expect(caught).toMatchObject({
        message: `count must be a whole number from 1 to 100, got ${String(count)}`,
        details: { count: String(count), maxBatch: 100 },
      });
    },
  );
});
