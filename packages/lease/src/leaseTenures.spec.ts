import { describe, expect, it } from 'vitest';
import type { LeaseJournalEntry } from './LeaseJournal.js';
import { leaseTenures } from './LeaseJournal.js';

const claimed = (
  machineId: number,
  holder: string,
  atMs: number,
  floorMarkMs = 0,
): LeaseJournalEntry => ({
  event: 'claimed',
  machineId,
  holder,
  instance: `${holder}@${atMs}`,
  atMs,
  floorMarkMs,
});
const released = (of: LeaseJournalEntry, atMs: number, markMs: number): LeaseJournalEntry => ({
  event: 'released',
  machineId: of.machineId,
  holder: of.holder,
  instance: of.instance,
  atMs,
  markMs,
});

describe('leaseTenures', () => {
  it('runs a released tenure to its final mark, a reclaimed one to the next claim’s floor mark, a held one to now', () => {
    const a = claimed(3, 'a', 1000);
    const b = claimed(3, 'b', 5000, 4200);
    const c = claimed(4, 'c', 2000);
    const tenures = leaseTenures([a, c, released(c, 3000, 3100), b], 9000);
    expect(tenures.map((t) => [t.machineId, t.holder, t.fromMs, t.toMs, t.ended])).toEqual([
      [3, 'a', 1000, 4200, 'reclaimed'],
      [4, 'c', 2000, 3100, 'released'],
      [3, 'b', 5000, 9000, 'held'],
    ]);
  });

  it('ignores a release of a start whose claim it does not hold (trimmed, or another start’s)', () => {
    const a = claimed(1, 'a', 1000);
    const stranger = { ...claimed(1, 'a', 500), instance: 'older' };
    const tenures = leaseTenures([released(stranger, 900, 950), a], 2000);
    expect(tenures.map((t) => [t.holder, t.toMs, t.ended])).toEqual([['a', 2000, 'held']]);
  });

  it('never ends a tenure before it began (a floor mark older than the claim it closes)', () => {
    const tenures = leaseTenures([claimed(2, 'a', 1000), claimed(2, 'b', 3000, 400)], 4000);
    expect(tenures[0]).toMatchObject({ fromMs: 1000, toMs: 1000, ended: 'reclaimed' });
  });
});
