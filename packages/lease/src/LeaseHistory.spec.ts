import { describe, expect, it } from 'vitest';
import { historyOf } from './LeaseJournal.js';
import type { LeaseJournalEntry } from './LeaseJournal.js';

const entry = (machineId: number, atMs: number, event: LeaseJournalEntry['event'] = 'claimed') =>
  ({
    event,
    machineId,
    holder: `h${machineId}`,
    instance: `i${machineId}`,
    atMs,
    markMs: atMs + 5,
  }) as const;

describe('historyOf', () => {
  const entries = [entry(1, 100), entry(2, 200), entry(1, 300, 'released'), entry(3, 400)];

  it('covers from the oldest entry kept to the read, whatever the filter', () => {
    expect(historyOf(entries, 1000, { machineId: 3 }).covered).toEqual({ fromMs: 100, toMs: 1000 });
    expect(historyOf([], 1000).covered).toEqual({ fromMs: undefined, toMs: 1000 });
  });

  it('keeps one machine id’s entries and tenures', () => {
    const h = historyOf(entries, 1000, { machineId: 1 });
    expect(h.entries.map((e) => e.event)).toEqual(['claimed', 'released']);
    expect(h.tenures.map((t) => [t.machineId, t.toMs, t.ended])).toEqual([[1, 305, 'released']]);
  });

  it('keeps the tenures that reach a time, and the entries from it', () => {
    const h = historyOf(entries, 1000, { sinceMs: 350 });
    expect(h.tenures.map((t) => t.machineId)).toEqual([2, 3]);
    expect(h.entries.map((e) => e.machineId)).toEqual([3]);
  });
});
