import { silentLogger } from '@vesta/core';
import { ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { LeaseFence } from './LeaseFence.js';
import { CoordinatorLease, type HoldTurn } from './LeaseProvider.js';
import type { HeldRecord, HoldVerbs, LeaseClaimant } from './LeaseStore.js';
import { leaseHold } from './testing.js';

const c: LeaseClaimant = {
  key: 'k',
  stableKey: true,
  instance: 'i',
  request: { range: { min: 0, max: 9 }, genMethod: 0, type: 1 },
};

function turn(everConfirmed: boolean, era?: string): HoldTurn {
  return {
    everConfirmed,
    era,
    closed: false,
    mark: (...floors) => Math.max(1_000, ...floors),
    markStandsMs: 0,
    keep: () => undefined,
  };
}

/** The hold policy of a lease over `verbs` (its own turns never come: the time stands still). */
function holdOn(
  verbs: HoldVerbs<number>,
  start: { floorMarkMs: number; claimed: { era: string; version: number } | undefined },
) {
  const time = new ManualTimeSource();
  const lease = new CoordinatorLease(
    {
      coordinator: 'Memory',
      options: { time, clock: time.now, logger: silentLogger, refreshIntervalMs: 100 },
      root: '/fleet',
      claimant: c,
      machineId: 1,
      notBeforeMs: 0,
      floorMarkMs: start.floorMarkMs,
      fence: new LeaseFence(time, 400),
      cache: undefined,
      era: start.claimed?.era,
      claimed: start.claimed && {
        era: { era: start.claimed.era, open: true },
        version: start.claimed.version,
      },
    },
    verbs,
  );
  return leaseHold(lease);
}

/** In-memory verbs: what `read` finds, and what each write answers; the calls made. */
function verbs(
  found: HeldRecord<number>,
  answers: { renew?: number | 'conflict'; retake?: number | 'conflict' } = {},
) {
  const calls: string[] = [];
  const v: HoldVerbs<number> = {
    renew: async ({ era }, holding, version, retake) => {
      if (retake) {
        calls.push(`retake ${era}@${version} mark ${holding.markMs}`);
        return answers.retake ?? version + 1;
      }
      calls.push(`renew ${era}@${version}`);
      return answers.renew ?? version + 1;
    },
    read: async () => {
      calls.push('read');
      return found;
    },
    release: async () => true,
    close: () => undefined,
  };
  return { v, calls };
}

const record = (over: Partial<NonNullable<HeldRecord<number>['record']>> = {}) => ({
  owner: 'k',
  instance: 'old',
  markMs: 500,
  live: false,
  version: 4,
  ...over,
});
const openEra = { era: 'e1', open: true };

describe('the hold policy of a coordinator lease over the store verbs', () => {
  it.each([
    [201, 'kept', ['keepAlive']],
    [200, 'confirmed', ['keepAlive', 'renew e1@3']],
  ])(
    'with a keep-alive and a fence of 400 ms renewed every 100 ms, a turn whose mark stands %i ms is %s',
    async (standsMs, outcome, made) => {
      const { v, calls } = verbs({ era: openEra, record: undefined });
      const keepAlive = async () => {
        calls.push('keepAlive');
        return true;
      };
      const hold = holdOn(
        { ...v, keepAlive },
        { floorMarkMs: 0, claimed: { era: 'e1', version: 3 } },
      );
      expect(await hold.renew({ ...turn(true, 'e1'), markStandsMs: standsMs })).toBe(outcome);
      expect(calls).toEqual(made);
    },
  );

  it('writes in the turn whose keep-alive found a store-side lease gone, and sends nothing once the lease closed during the keep-alive', async () => {
    const { v, calls } = verbs({ era: openEra, record: undefined });
    const t = { ...turn(true, 'e1'), markStandsMs: 300, closed: false };
    let closes = false;
    const keepAlive = async () => {
      calls.push('keepAlive');
      t.closed = closes;
      return false;
    };
    const hold = holdOn(
      { ...v, keepAlive },
      { floorMarkMs: 0, claimed: { era: 'e1', version: 3 } },
    );
    expect(await hold.renew(t)).toBe('confirmed');
    expect(calls).toEqual(['keepAlive', 'renew e1@3']);
    closes = true;
    expect(await hold.renew(t)).toBe('missed');
    expect(calls).toEqual(['keepAlive', 'renew e1@3', 'keepAlive']);
  });

  it('renews on the version last written, and on the one a re-read adopts after a conflict', async () => {
    const { v, calls } = verbs(
      { era: openEra, record: record({ instance: 'i', version: 9 }) },
      { renew: 'conflict' },
    );
    const hold = holdOn(v, { floorMarkMs: 0, claimed: { era: 'e1', version: 3 } });
    expect(await hold.renew(turn(true, 'e1'))).toBe('missed');
    expect(calls).toEqual(['renew e1@3', 'read']);
    expect(await hold.renew(turn(true, 'e1'))).toBe('missed');
    expect(calls.at(-2)).toBe('renew e1@9');
  });

  it.each([
    ['the era gone', { era: undefined, record: record({ instance: 'i' }) }, { lost: 'era' }],
    [
      'the era closed',
      { era: { era: 'e1', open: false }, record: record({ instance: 'i' }) },
      { lost: 'era' },
    ],
    ['the record gone', { era: openEra, record: undefined }, { lost: 'moved', owner: null }],
    [
      'another key',
      { era: openEra, record: record({ owner: 'x', instance: 'j' }) },
      { lost: 'moved', owner: 'x' },
    ],
    [
      'a later start of the same key',
      { era: openEra, record: record({ owner: 'k', instance: 'j' }) },
      { lost: 'moved', owner: 'k' },
    ],
    [
      'released by hand',
      { era: openEra, record: record({ owner: null, instance: null }) },
      { lost: 'moved', owner: null },
    ],
  ])(
    'after a conflict, gives the id up when it finds %s, adopting nothing',
    async (_, found, outcome) => {
      const { v, calls } = verbs(found as HeldRecord<number>, { renew: 'conflict' });
      const hold = holdOn(v, { floorMarkMs: 0, claimed: { era: 'e1', version: 3 } });
      expect(await hold.renew(turn(true, 'e1'))).toEqual(outcome);
      await hold.renew(turn(true, 'e1'));
      expect(calls).toEqual(['renew e1@3', 'read', 'renew e1@3', 'read']);
    },
  );

  it('after a conflict, misses the turn and adopts nothing once the lease closed during the read', async () => {
    const { v, calls } = verbs(
      { era: openEra, record: record({ instance: 'i', version: 9 }) },
      { renew: 'conflict' },
    );
    const t = { ...turn(true, 'e1'), closed: false };
    const hold = holdOn(
      {
        ...v,
        read: async () => {
          t.closed = true;
          return v.read();
        },
      },
      { floorMarkMs: 0, claimed: { era: 'e1', version: 3 } },
    );
    expect(await hold.renew(t)).toBe('missed');
    await hold.renew(turn(true, 'e1'));
    expect(calls).toEqual(['renew e1@3', 'read', 'renew e1@3', 'read']);
  });

  it.each([
    ['no era', { era: undefined, record: record() }, { lost: 'era' }],
    ['a closed era', { era: { era: 'e1', open: false }, record: record() }, { lost: 'era' }],
    [
      'another era than the cache’s',
      { era: { era: 'e2', open: true }, record: record() },
      { lost: 'era' },
    ],
    ['another key', { era: openEra, record: record({ owner: 'x' }) }, { lost: 'other' }],
    [
      'a mark past the cached one',
      { era: openEra, record: record({ markMs: 501 }) },
      { lost: 'other' },
    ],
    ['no record', { era: openEra, record: undefined }, { lost: 'other' }],
  ])('gives a cached id up when it finds %s', async (_, found, outcome) => {
    const { v, calls } = verbs(found as HeldRecord<number>);
    const hold = holdOn(v, { floorMarkMs: 500, claimed: undefined });
    expect(await hold.renew(turn(false, 'e1'))).toMatchObject(outcome);
    expect(calls).toEqual(['read']);
  });

  it('waits while an earlier start of the key holds the cached id live, then takes it back above its mark', async () => {
    const found = { era: openEra, record: record({ live: true }) };
    const { v, calls } = verbs(found);
    const hold = holdOn(v, { floorMarkMs: 500, claimed: undefined });
    expect(await hold.renew(turn(false, 'e1'))).toBe('missed');
    found.record = record({ live: false });
    expect(await hold.renew(turn(false, 'e1'))).toEqual({ confirmedUnder: 'e1' });
    expect(calls).toEqual(['read', 'read', 'retake e1@4 mark 1000']);
    // Held from then on: renewals write on the retaken version.
    expect(await hold.renew(turn(true, 'e1'))).toBe('confirmed');
    expect(calls.at(-1)).toBe('renew e1@5');
  });

  it('after a lapse takes the id back only while the record is still this start’s', async () => {
    let lapsed = true;
    const found = { era: openEra, record: record({ instance: 'other', markMs: 100 }) };
    const { v } = verbs(found);
    const hold = holdOn(
      { ...v, lapsed: () => lapsed },
      { floorMarkMs: 0, claimed: { era: 'e1', version: 3 } },
    );
    expect(await hold.renew(turn(true, 'e1'))).toEqual({ lost: 'moved', owner: 'k' });
    found.record = record({ instance: 'i', markMs: 900 });
    expect(await hold.renew(turn(true, 'e1'))).toEqual({ confirmedUnder: 'e1' });
    lapsed = false;
  });

  it('holds a cached id on its own take-back that landed though its answer was lost, confirming it as taken back at the next write', async () => {
    const found = { era: openEra, record: record({ instance: 'i', markMs: 9_000, live: true }) };
    const { v, calls } = verbs(found);
    const hold = holdOn(v, { floorMarkMs: 500, claimed: undefined });
    expect(await hold.renew(turn(false, 'e1'))).toBe('missed');
    expect(await hold.renew(turn(false, 'e1'))).toEqual({ confirmedUnder: 'e1' });
    expect(calls).toEqual(['read', 'renew e1@4']);
    expect(await hold.renew(turn(true, 'e1'))).toBe('confirmed');
  });
});
