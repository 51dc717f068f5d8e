import { describe, expect, it } from 'vitest';
import { countDuplicates } from './runAudit.js';

describe('countDuplicates', () => {
  it.each([
    [[], { count: 0, distinct: 0, examples: [] }],
    [[1n, 2n, 3n], { count: 0, distinct: 0, examples: [] }],
    [
      [1n, 1n, 1n, 2n, 5n, 5n],
      {
        count: 3,
        distinct: 2,
        examples: [
          { value: 1n, times: 3 },
          { value: 5n, times: 2 },
        ],
      },
    ],
  ])('counts the copies beyond the first in %s', async (sorted, expected) => {
    expect(await countDuplicates(sorted, 10)).toEqual(expected);
  });

  it('keeps at most the examples asked for, and counts the rest', async () => {
    expect(await countDuplicates([1n, 1n, 2n, 2n, 3n, 3n], 1)).toEqual({
      count: 3,
      distinct: 3,
      examples: [{ value: 1n, times: 2 }],
    });
  });
});
