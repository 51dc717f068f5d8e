import fc from 'fast-check';
import type { IdMetaWidths } from '../layout/IdMeta.js';

/** For property tests: layouts (in Vesta's order) whose widths lie in the given ranges and fit 64 bits. */
export function layoutWidthsArbitrary(
  ranges: Record<keyof IdMetaWidths, readonly [min: number, max: number]>,
): fc.Arbitrary<IdMetaWidths> {
  return fc
    .record(
      Object.fromEntries(
        Object.entries(ranges).map(([key, [min, max]]) => [key, fc.integer({ min, max })]),
      ) as Record<keyof IdMetaWidths, fc.Arbitrary<number>>,
    )
    .filter((w) => Object.values(w).reduce((sum, bits) => sum + bits, 0) <= 64);
}
