import { describe, expect, it } from 'vitest';
import type { LeaseClaimant } from './LeaseStore.js';
import { rereadHeld, type HeldRead } from './storeHold.js';

const c = { key: 'k', instance: 'i' } as LeaseClaimant;
const open = { closed: false };

describe('rereadHeld', () => {
  it.each<[string, HeldRead<number>, unknown]>([
    ['the era gone', { eraStands: false, record: undefined }, { lost: 'era' }],
    ['the record gone', { eraStands: true, record: undefined }, { lost: 'moved', owner: null }],
    [
      'another key',
      { eraStands: true, record: { owner: 'x', instance: 'j', version: 3 } },
      { lost: 'moved', owner: 'x' },
    ],
    [
      'a later start of the same key',
      { eraStands: true, record: { owner: 'k', instance: 'j', version: 3 } },
      { lost: 'moved', owner: 'k' },
    ],
    [
      'released by hand',
      { eraStands: true, record: { owner: null, instance: null, version: 3 } },
      { lost: 'moved', owner: null },
    ],
  ])('gives the id up when it finds %s, adopting nothing', async (_, found, outcome) => {
    const adopted: number[] = [];
    expect(
      await rereadHeld(
        open,
        c,
        () => Promise.resolve(found),
        (v) => adopted.push(v),
      ),
    ).toEqual(outcome);
    expect(adopted).toEqual([]);
  });

  it('adopts the version of a record that is still this start’s, and misses the turn', async () => {
    const adopted: number[] = [];
    const found = { eraStands: true, record: { owner: 'k', instance: 'i', version: 7 } };
    expect(
      await rereadHeld(
        open,
        c,
        () => Promise.resolve(found),
        (v) => adopted.push(v),
      ),
    ).toBe('missed');
    expect(adopted).toEqual([7]);
  });

  it('misses the turn and adopts nothing once the lease closed during the read', async () => {
    const adopted: number[] = [];
    const turn = { closed: false };
    const read = (): Promise<HeldRead<number>> => {
      turn.closed = true;
      return Promise.resolve({ eraStands: false, record: undefined });
    };
    expect(await rereadHeld(turn, c, read, (v) => adopted.push(v))).toBe('missed');
    expect(adopted).toEqual([]);
  });
});
