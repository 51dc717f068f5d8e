import type { MachineIdRange } from '@vesta/core';
import type { IdKeyWindow } from './EtcdNamespace.js';

/** One window of a range's ids in etcd's key order: its keys, and the ids of the range in it. */
export interface IdWindow extends IdKeyWindow {
  readonly ids: ReadonlySet<number>;
}

/** The ids a window holds at most. */
export const WINDOW_IDS = 64;

const windowsByRange = new Map<string, readonly IdWindow[]>();

/**
 * The ids of `range` cut into windows of {@link WINDOW_IDS} or fewer, each a span of the keys
 * (`ids/<id>` sorts by the id's decimal digits, so `ids/1` is followed by `ids/10`): a claim round
 * reads one window's keys in one range request per key kind, not one per id. A window's span
 * may hold keys of ids outside `range`; the rows of those are the planner's to ignore.
 */
export function idWindows(range: MachineIdRange): readonly IdWindow[] {
  const cacheKey = `${range.min}-${range.max}`;
  const cached = windowsByRange.get(cacheKey);
  if (cached !== undefined) return cached;
  const keys: string[] = [];
  for (let id = range.min; id <= range.max; id++) keys.push(String(id));
  keys.sort();
  // Of even sizes: a smaller last window would see more starts race for each of its ids.
  const count = Math.ceil(keys.length / WINDOW_IDS);
  const windows: IdWindow[] = [];
  for (let n = 0; n < count; n++) {
    const at = Math.round((n * keys.length) / count);
    const end = Math.round(((n + 1) * keys.length) / count);
    windows.push({
      from: keys[at] as string,
      to: keys[end],
      ids: new Set(keys.slice(at, end).map(Number)),
    });
  }
  windowsByRange.set(cacheKey, windows);
  return windows;
}
