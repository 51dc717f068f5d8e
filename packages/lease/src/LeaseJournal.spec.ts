import { describe, expect, it } from 'vitest';
import { decodeJournalEntry, encodeJournalEntry, type LeaseJournalEntry } from './LeaseJournal.js';

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

  it.each([
    ['not JSON', '{'],
    ['an unknown event', '{"event":"x","machineId":1,"holder":"a","instance":"i","atMs":1}'],
    [
      'a negative machine id',
      '{"event":"claimed","machineId":-1,"holder":"a","instance":"i","atMs":1}',
    ],
    ['no holder', '{"event":"claimed","machineId":1,"instance":"i","atMs":1}'],
  ])('reads nothing from %s', (_, text) => {
    expect(decodeJournalEntry(text)).toBeUndefined();
  });
});
