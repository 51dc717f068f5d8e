import { describe, expect, it } from 'vitest';
import { caught } from '@vesta/testkit';
import {
  createSharedIdState,
  MarkCell,
  markCells,
  SharedFence,
} from '../populator/SharedIdState.js';
import { Timer } from '../time/Timer.js';
import { HighWaterMark } from './HighWaterMark.js';
import { MemoryTimeMarkStore } from './TimeMarkStore.js';

const EPOCH_MS = Date.UTC(2025, 0, 1);
const NOW_MS = Date.UTC(2026, 0, 1);

/** A mark on fresh shared cells, on a clock standing at NOW_MS, in seconds. */
function markOnSharedCells(): {
  mark: HighWaterMark;
  cells: Int32Array;
  store: MemoryTimeMarkStore;
} {
  const cells = markCells(createSharedIdState().buffer);
  const store = new MemoryTimeMarkStore();
  const timer = new Timer(EPOCH_MS, 1000, 30, () => NOW_MS);
  return { mark: new HighWaterMark(store, timer, 3000, cells), cells, store };
}

const unitOf = (ms: number): number => Math.floor((ms - EPOCH_MS) / 1000);

describe('HighWaterMark on shared cells', () => {
  it('raises the mark for a time past it while the owner is open', () => {
    const { mark, store } = markOnSharedCells();
    mark.ensure(unitOf(NOW_MS));
    expect(store.read()).toBe(NOW_MS + 1000 + 3000);
    expect(mark.markMs).toBe(NOW_MS + 4000);
  });

  it('refuses to raise it (SERVICE_CLOSED) once the owner shut the fence, leaving mark and store as they were', () => {
    const { mark, cells, store } = markOnSharedCells();
    mark.ensure(unitOf(NOW_MS));
    Atomics.store(cells, MarkCell.FENCE, SharedFence.CLOSED);
    expect(caught(() => mark.ensure(unitOf(NOW_MS) + 10)).code).toBe('SERVICE_CLOSED');
    expect(mark.markMs).toBe(NOW_MS + 4000);
    expect(store.read()).toBe(NOW_MS + 4000);
    // A time the mark already covers needs no write, and is not refused here.
    expect(() => mark.ensure(unitOf(NOW_MS))).not.toThrow();
  });

  it("runs the owner's close step only once a writer in progress let go of the lock", async () => {
    const { mark, cells } = markOnSharedCells();
    // Another thread holds the writer lock, about to raise the mark.
    expect(Atomics.compareExchange(cells, MarkCell.WRITER, 0, 1)).toBe(0);
    const seen: number[] = [];
    const closing = mark.holdingWriter(() => seen.push(mark.markMs));
    // It saw the raised mark below, so it ran after the write: it waited for the lock.
    const raisedSeconds = unitOf(NOW_MS) + 60;
    Atomics.store(cells, MarkCell.MARK, raisedSeconds);
    Atomics.store(cells, MarkCell.WRITER, 0);
    await closing;
    expect(seen).toEqual([EPOCH_MS + raisedSeconds * 1000]);
    expect(Atomics.load(cells, MarkCell.WRITER)).toBe(0);
  });
});
