import { describe, expect, it } from 'vitest';
import { idWindows, WINDOW_IDS } from './EtcdMachineIdProvider.js';

/** Whether `id`'s key (its decimal digits) lies in the window's span of the key order. */
const spans = (w: { from: string; to: string | undefined }, id: number): boolean =>
  String(id) >= w.from && (w.to === undefined || String(id) < w.to);

describe('idWindows', () => {
  it.each([
    { min: 0, max: 923 },
    { min: 0, max: 1023 },
    { min: 924, max: 1023 },
    { min: 7, max: 7 },
    { min: 5, max: 130 },
  ])(
    'cuts $min-$max into windows of at most WINDOW_IDS ids whose key spans hold exactly their ids',
    (range) => {
      const windows = idWindows(range);
      const ids = windows.flatMap((w) => [...w.ids]);
      const all = Array.from({ length: range.max - range.min + 1 }, (_, i) => range.min + i);
      // Every id of the range in exactly one window.
      expect([...ids].sort((a, b) => a - b)).toEqual(all);
      const sizes = windows.map((w) => w.ids.size);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(WINDOW_IDS);
      // Even: no window much smaller than another.
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      for (const w of windows) {
        for (const id of all) expect(spans(w, id)).toBe(w.ids.has(id));
      }
    },
  );

  it('answers the same windows for the same range', () => {
    expect(idWindows({ min: 0, max: 923 })).toBe(idWindows({ min: 0, max: 923 }));
  });
});
