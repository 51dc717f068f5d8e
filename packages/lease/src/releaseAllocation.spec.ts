import { codeOfAsync } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import type { LeaseAllocation } from './LeaseAdmin.js';
import { releaseAllocation, type ReleaseOutcome } from './LeaseAdmin.js';

const held: LeaseAllocation = {
  machineId: 7,
  owner: 'a:1',
  alive: true,
  markMs: 1_000,
  ageMs: 250,
  host: 'h',
  pid: 42,
};

/** A store of one id whose release attempts answer `outcomes` in turn. */
function store(allocation: LeaseAllocation, ...outcomes: ReleaseOutcome[]) {
  const calls = { reads: 0, releases: 0 };
  const read = async (machineId: number) => {
    calls.reads++;
    if (machineId !== allocation.machineId) return undefined;
    return {
      allocation,
      release: async () => {
        calls.releases++;
        return outcomes.shift() ?? 'released';
      },
    };
  };
  return { read, calls };
}

describe('releaseAllocation', () => {
  it('releases an id no one holds at once, reporting it as it was with age 0', async () => {
    const { read, calls } = store({ ...held, alive: false });
    const released = await releaseAllocation(7, {}, 'under /vesta', read);
    expect(released).toEqual({ ...held, alive: false, ageMs: 0 });
    expect(calls.releases).toBe(1);
  });

  it('refuses a live id without force, touching nothing', async () => {
    const { read, calls } = store(held);
    const error = await releaseAllocation(7, {}, 'under /vesta', read).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(String(error)).toContain('held by a live instance (a:1); use --force');
    expect(calls.releases).toBe(0);
  });

  it('takes a live id with force', async () => {
    const { read } = store(held);
    await expect(releaseAllocation(7, { force: true }, 'under /vesta', read)).resolves.toEqual({
      ...held,
      ageMs: 0,
    });
  });

  it('refuses an id that became live between the read and the release', async () => {
    const { read } = store({ ...held, alive: false }, 'live');
    expect(await codeOfAsync(() => releaseAllocation(7, {}, 'under /vesta', read))).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('reads again after a race, and gives up after a few', async () => {
    const twice = store(held, 'raced', 'raced');
    await expect(releaseAllocation(7, { force: true }, '', twice.read)).resolves.toMatchObject({
      machineId: 7,
    });
    expect(twice.calls).toEqual({ reads: 3, releases: 3 });
    const always = store(held, 'raced', 'raced', 'raced', 'raced', 'raced');
    const error = await releaseAllocation(7, { force: true }, '', always.read).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(String(error)).toContain('changed while being released');
    expect(always.calls.releases).toBe(5);
  });

  it.each([
    ['an id not allocated', 8, 'NOT_FOUND'],
    ['an id that went meanwhile', 7, 'NOT_FOUND'],
    ['a negative id', -1, 'INVALID_ARGUMENT'],
    ['an id past 1023', 1024, 'INVALID_ARGUMENT'],
    ['a fraction', 1.5, 'INVALID_ARGUMENT'],
  ])('refuses %s', async (_, machineId, code) => {
    const { read } = store({ ...held, alive: false }, 'missing');
    expect(await codeOfAsync(() => releaseAllocation(machineId, {}, 'under /vesta', read))).toBe(
      code,
    );
  });

  it('names where the id is not allocated', async () => {
    const { read } = store(held);
    await expect(releaseAllocation(9, {}, 'in vesta.machine_ids', read)).rejects.toThrow(
      'machine id 9 is not allocated in vesta.machine_ids',
    );
  });

  it('refuses to touch data it cannot read', async () => {
    const read = async () => 'unreadable' as const;
    expect(await codeOfAsync(() => releaseAllocation(7, { force: true }, '', read))).toBe(
      'INVALID_ARGUMENT',
    );
  });
});
