import { describe, expect, it } from 'vitest';
import { type TenureRow, LeaseCoverage } from './LeaseCoverage.js';

const tenure = (
  machineId: number,
  fromMs: number,
  toMs: number,
  ended: TenureRow['ended'] = 'released',
): TenureRow => ({ machineId, holder: 'h', instance: 'i', fromMs, toMs, ended });

describe('LeaseCoverage', () => {
  const coverage = new LeaseCoverage({
    tenures: [
      tenure(5, 10_500, 20_000),
      tenure(5, 30_000, 40_000, 'held'),
      tenure(6, 10_000, 12_000),
    ],
    covered: { fromMs: 10_000, toMs: 40_000 },
  });

  it.each([
    ['an id inside a tenure', 5, 15_000, 1, 'covered'],
    ['an id of the second in which a tenure began', 5, 10_000, 1000, 'covered'],
    ['a millisecond id just before the tenure began', 5, 10_499, 1, 'unleased'],
    ['an id at the final mark', 5, 20_000, 1, 'covered'],
    ['an id between two tenures', 5, 25_000, 1000, 'unleased'],
    ['an id past the read of a held tenure', 5, 45_000, 1, 'covered'],
    ['an id of a machine id nobody held', 7, 15_000, 1, 'unleased'],
    ['an id of another holder’s machine id after its release', 6, 13_000, 1, 'unleased'],
    ['an id before the journal’s window', 7, 9_000, 1000, 'notJudged'],
  ])('judges %s', (_, machine, unixMs, unitMs, verdict) => {
    expect(coverage.judge(machine, unixMs, unitMs)).toBe(verdict);
  });

  // A holder whose `claimed` entry was trimmed (retention), or who claimed before the store kept
  // a journal (an older deployment), holds its id with no tenure in the window: its ids are not
  // evidence of anything.
  describe('a machine id whose holder at the window’s start is unknown', () => {
    const window = { fromMs: 10_000, toMs: 50_000 };
    const coverage = new LeaseCoverage(
      {
        tenures: [
          // Claimed after a holder whose claim was trimmed, which published marks up to 25_000.
          { ...tenure(5, 30_000, 40_000, 'held'), floorMarkMs: 25_000 },
          // Never held before this claim (no mark on its record).
          { ...tenure(6, 30_000, 40_000, 'held'), floorMarkMs: 0 },
        ],
        covered: window,
      },
      [
        { machineId: 5, alive: true, markMs: 45_000 },
        { machineId: 6, alive: true, markMs: 45_000 },
        { machineId: 8, alive: true, markMs: 45_000 },
        // Released by a holder whose tenure the journal no longer shows.
        { machineId: 10, alive: false, markMs: 20_000 },
        // A record whose mark could not be read.
        { machineId: 11, alive: false, markMs: 0 },
      ],
    );

    it.each([
      ['an id at the mark of a holder whose claim was trimmed', 5, 25_000, 1, 'notJudged'],
      ['an id of the second of that mark', 5, 24_500, 1000, 'notJudged'],
      ['an id past that mark, before the next claim', 5, 25_001, 1, 'unleased'],
      ['an id before the first claim of a machine id never held before', 6, 20_000, 1, 'unleased'],
      ['an id of a machine id held, with no tenure in the window', 8, 20_000, 1, 'notJudged'],
      ['an id of a machine id never allocated', 9, 20_000, 1, 'unleased'],
      ['an id up to the mark of a holder released before the window', 10, 20_000, 1, 'notJudged'],
      ['an id past the mark of a holder released before the window', 10, 20_001, 1, 'unleased'],
      ['an id of a machine id whose record has no mark read', 11, 20_001, 1, 'notJudged'],
    ])('judges %s', (_, machine, unixMs, unitMs, verdict) => {
      expect(coverage.judge(machine, unixMs, unitMs)).toBe(verdict);
    });
  });

  // The double issuer: A's lease was reclaimed by B (B's claim closed A's tenure at A's last
  // published mark), and A went on issuing. Ids carry no holder: only those of a time no tenure
  // covers can be told.
  describe('a holder that went on issuing after its id was reclaimed', () => {
    const coverage = new LeaseCoverage({
      tenures: [
        { ...tenure(5, 1_000, 5_000, 'reclaimed'), floorMarkMs: 0 },
        { ...tenure(5, 8_000, 50_000, 'held'), floorMarkMs: 5_000 },
      ],
      covered: { fromMs: 1_000, toMs: 50_000 },
    });

    it.each([
      ['past its last mark, before the next claim: flagged', 6_000, 'unleased'],
      ['during the next holder’s tenure: covered, the journal cannot tell', 9_000, 'covered'],
    ])('an id %s', (_, unixMs, verdict) => {
      expect(coverage.judge(5, unixMs, 1)).toBe(verdict);
    });
  });

  it('judges nothing on an empty journal', () => {
    const empty = new LeaseCoverage({ tenures: [], covered: { fromMs: undefined, toMs: 1 } });
    expect(empty.judge(1, 5, 1)).toBe('notJudged');
    expect(empty.covered).toEqual({ from: null, to: new Date(1).toISOString() });
  });

  describe('machine ids in no range the coordinator leases from', () => {
    const EMBEDDED = { min: 0, max: 923 };
    const SERVER = { min: 924, max: 1023 };
    // A coordinator of servers: its journal and records hold server machine ids only.
    const coverage = new LeaseCoverage(
      { tenures: [tenure(924, 10_000, 40_000, 'held')], covered: { fromMs: 10_000, toMs: 40_000 } },
      [{ machineId: 925, alive: false, markMs: 20_000 }],
      [EMBEDDED, SERVER],
    );

    it.each([
      ['an id of a fixed embedded machine id', 5, 15_000, 'notManaged'],
      ['an id of the last embedded machine id', 923, 15_000, 'notManaged'],
      ['an id of a server machine id nobody held', 1000, 15_000, 'unleased'],
      ['an id of a held server machine id', 924, 15_000, 'covered'],
    ])('judges %s', (_, machine, unixMs, verdict) => {
      expect(coverage.judge(machine, unixMs, 1)).toBe(verdict);
    });

    it('manages every range that holds a recorded machine id, and none of an empty store', () => {
      const both = new LeaseCoverage(
        { tenures: [tenure(3, 10_000, 20_000)], covered: { fromMs: 10_000, toMs: 40_000 } },
        [{ machineId: 1000, alive: true, markMs: 30_000 }],
        [EMBEDDED, SERVER],
      );
      expect([5, 1001].map((m) => both.judge(m, 15_000, 1))).toEqual(['unleased', 'unleased']);
      const empty = new LeaseCoverage(
        { tenures: [], covered: { fromMs: undefined, toMs: 40_000 } },
        [],
        [EMBEDDED, SERVER],
      );
      expect(empty.judge(5, 15_000, 1)).toBe('notManaged');
    });
  });
});
