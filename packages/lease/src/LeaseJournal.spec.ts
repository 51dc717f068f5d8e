import { describe, expect, it } from 'vitest';
import {
  decodeJournalEntry,
  encodeJournalEntry,
  trimJournal,
  type LeaseJournalEntry,
} from './LeaseJournal.js';

const claimedEntry: LeaseJournalEntry = {
  event: 'claimed',
  machineId: 5,
  holder: 'h',
  instance: 'i',
  atMs: 1,
  floorMarkMs: 0,
};

describe('the lease journal’s text form', () => {
  it('reads back what it wrote', () => {
    const entry: LeaseJournalEntry = {
      event: 'released',
      machineId: 1023,
      holder: 'orders-7',
      instance: 'i-1',
      atMs: 1_700_000_000_000,
      markMs: 1_700_000_000_500,
    };
    expect(decodeJournalEntry(encodeJournalEntry(entry))).toEqual(entry);
  });

  it('reads back a holder key with quotes, newlines and any unicode', () => {
    const holder = 'a"b\n\u0000\u202e😀'.repeat(20);
    const entry: LeaseJournalEntry = { ...claimedEntry, holder };
    expect(decodeJournalEntry(encodeJournalEntry(entry))?.holder).toBe(holder);
  });

  it.each([
    ['not JSON', '{'],
    ['an unknown event', '{"event":"x","machineId":1,"holder":"a","instance":"i","atMs":1}'],
    [
      'a negative machine id',
      '{"event":"claimed","machineId":-1,"holder":"a","instance":"i","atMs":1}',
    ],
    ['no holder', '{"event":"claimed","machineId":1,"instance":"i","atMs":1}'],
    [
      'a time past any date',
      '{"event":"claimed","machineId":1,"holder":"a","instance":"i","atMs":9000000000000000}',
    ],
    [
      'a mark past any date',
      '{"event":"released","machineId":1,"holder":"a","instance":"i","atMs":1,"markMs":9000000000000000}',
    ],
    [
      'a machine id past 1023',
      '{"event":"claimed","machineId":1024,"holder":"a","instance":"i","atMs":1}',
    ],
  ])('reads nothing from %s', (_, text) => {
    expect(decodeJournalEntry(text)).toBeUndefined();
  });
});

describe('trimJournal', () => {
  const trim = async (count: number, retention: number) => {
    const entries = Array.from({ length: count }, (_, n) => n);
    const batches: number[][] = [];
    await trimJournal({
      count,
      retention,
      oldest: async (n) => entries.slice(0, n),
      remove: async (batch) => void batches.push([...batch]),
    });
    return batches;
  };

  it('leaves a journal up to its retention plus a tenth alone', async () => {
    expect(await trim(1650, 1500)).toEqual([]);
  });

  it('removes the oldest down to the retention, a hundred at a time', async () => {
    const batches = await trim(1651, 1500);
    expect(batches.map((b) => b.length)).toEqual([100, 51]);
    expect(batches.flat()).toEqual(Array.from({ length: 151 }, (_, n) => n));
  });
});
