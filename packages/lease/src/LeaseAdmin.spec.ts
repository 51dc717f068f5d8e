import { codeOfAsync } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { VestaError } from '@vesta/core';
import {
  LeaseAdmin,
  type AdminRow,
  type AdminStore,
  type LeaseAllocation,
  type LeaseStoreInitOutcome,
  type ReleaseOutcome,
} from './LeaseAdmin.js';

/** An admin on `over`'s verbs, the others answering nothing. */
function admin(over: Partial<AdminStore<unknown, AdminRow>>) {
  return new LeaseAdmin<LeaseAllocation>({
    store: 'Memory',
    where: '',
    namespace: '',
    open: () => undefined,
    close: () => undefined,
    list: async () => [],
    read: async () => undefined,
    release: async () => 'raced',
    init: async () => 'raced',
    history: async () => [],
    ...over,
  });
}

/** LeaseAdmin.release, on a store that reads with `read` and releases with `release`. */
const releaseAllocation = (
  machineId: number,
  options: { force?: boolean },
  where: string,
  read: (machineId: number) => Promise<AdminRow | undefined>,
  release: () => Promise<ReleaseOutcome> = async () => 'released',
) => admin({ where, read: (_c, id) => read(id), release }).release(machineId, options);

/** LeaseAdmin.init, on a store whose attempts are `attempt`. */
const initLeaseStore = (
  namespace: string,
  attempt: (era: string) => Promise<LeaseStoreInitOutcome>,
) => admin({ namespace, init: (_c, era) => attempt(era) }).init();

/** One LeaseAdmin call on `session`'s connection, doing `work`. */
const withAdminSession = async <C, T>(
  session: Pick<AdminStore<C, AdminRow>, 'store' | 'code' | 'open' | 'close'>,
  work: (connection: C) => Promise<T>,
): Promise<T> => {
  let result: T | undefined;
  await new LeaseAdmin<LeaseAllocation, C>({
    ...session,
    where: '',
    namespace: '',
    list: async (c) => {
      result = await work(c);
      return [];
    },
    read: async () => undefined,
    release: async () => 'raced',
    init: async () => 'raced',
    history: async () => [],
  }).list();
  return result as T;
};

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
  const { machineId: id, alive, ...record } = allocation;
  const read = async (machineId: number): Promise<AdminRow | undefined> => {
    calls.reads++;
    return machineId === id ? { machineId, record, alive } : undefined;
  };
  const release = async (): Promise<ReleaseOutcome> => {
    calls.releases++;
    return outcomes.shift() ?? 'released';
  };
  return { read, release, calls };
}

describe('LeaseAdmin.release', () => {
  it('releases an id no one holds at once, reporting it as it was with age 0', async () => {
    const { read, release, calls } = store({ ...held, alive: false });
    const released = await releaseAllocation(7, {}, 'under /vesta', read, release);
    expect(released).toEqual({ ...held, alive: false, ageMs: 0 });
    expect(calls.releases).toBe(1);
  });

  it('refuses a live id without force, touching nothing', async () => {
    const { read, release, calls } = store(held);
    const error = await releaseAllocation(7, {}, 'under /vesta', read, release).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(String(error)).toContain('held by a live instance (a:1); use --force');
    expect(calls.releases).toBe(0);
  });

  it('takes a live id with force', async () => {
    const { read, release } = store(held);
    await expect(
      releaseAllocation(7, { force: true }, 'under /vesta', read, release),
    ).resolves.toEqual({
      ...held,
      ageMs: 0,
    });
  });

  it('refuses an id that became live between the read and the release', async () => {
    const { read, release } = store({ ...held, alive: false }, 'live');
    expect(await codeOfAsync(() => releaseAllocation(7, {}, 'under /vesta', read, release))).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('reads again after a race, and gives up after a few', async () => {
    const twice = store(held, 'raced', 'raced');
    await expect(
      releaseAllocation(7, { force: true }, '', twice.read, twice.release),
    ).resolves.toMatchObject({
      machineId: 7,
    });
    expect(twice.calls).toEqual({ reads: 3, releases: 3 });
    const always = store(held, 'raced', 'raced', 'raced', 'raced', 'raced');
    const error = await releaseAllocation(
      7,
      { force: true },
      '',
      always.read,
      always.release,
    ).catch((e: unknown) => e);
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
    const { read, release } = store({ ...held, alive: false }, 'missing');
    expect(
      await codeOfAsync(() => releaseAllocation(machineId, {}, 'under /vesta', read, release)),
    ).toBe(code);
  });

  it('names where the id is not allocated', async () => {
    const { read, release } = store(held);
    await expect(releaseAllocation(9, {}, 'in vesta.machine_ids', read, release)).rejects.toThrow(
      'machine id 9 is not allocated in vesta.machine_ids',
    );
  });

  it('refuses to touch data it cannot read', async () => {
    const read = async () => ({ machineId: 7, record: undefined, alive: false });
    expect(await codeOfAsync(() => releaseAllocation(7, { force: true }, '', read))).toBe(
      'INVALID_ARGUMENT',
    );
  });
});

/** A store whose attempts answer `outcomes` in turn, recording the era each was given. */
function initStore(...outcomes: LeaseStoreInitOutcome[]) {
  const eras: string[] = [];
  const attempt = async (era: string): Promise<LeaseStoreInitOutcome> => {
    eras.push(era);
    return outcomes.shift() ?? { created: true };
  };
  return { attempt, eras };
}

describe('LeaseAdmin.init', () => {
  it('reports the era the store created and where', async () => {
    const { attempt, eras } = initStore({ created: true });
    const init = await initLeaseStore('Redis under vesta', attempt);
    expect(init).toEqual({ era: eras[0], where: 'Redis under vesta' });
    expect(eras).toHaveLength(1);
  });

  it('refuses a store with history with COORDINATOR_NOT_NEW, naming what it holds', async () => {
    const { attempt } = initStore({ found: ['{vesta}:era', '{vesta}:ids'] });
    const error = await initLeaseStore('Redis under vesta', attempt).catch((e: unknown) => e);
    expect(VestaError.is(error) && error.code).toBe('COORDINATOR_NOT_NEW');
    expect(String(error)).toContain('Redis under vesta is not new');
    expect(String(error)).toContain('it holds {vesta}:era, {vesta}:ids');
  });

  it('reads again with a fresh era after a race, then reports what it found', async () => {
    const { attempt, eras } = initStore('raced', { found: ['/vesta/era'] });
    const error = await initLeaseStore('ZooKeeper under /vesta', attempt).catch((e: unknown) => e);
    expect(String(error)).toContain('it holds /vesta/era');
    expect(eras).toHaveLength(2);
    expect(new Set(eras).size).toBe(2);
  });

  it('gives up after a few races with COORDINATOR_NOT_NEW', async () => {
    const { attempt, eras } = initStore('raced', 'raced', 'raced', 'raced', 'raced', 'raced');
    const error = await initLeaseStore('etcd under /vesta', attempt).catch((e: unknown) => e);
    expect(VestaError.is(error) && error.code).toBe('COORDINATOR_NOT_NEW');
    expect(String(error)).toContain('changed while being declared new');
    expect(eras).toHaveLength(5);
  });
});

/** A session on a connection that records whether it was closed. */
function adminSession(code?: 'ZOOKEEPER_UNAVAILABLE') {
  const connection = { closed: false };
  return {
    connection,
    session: {
      store: 'ZooKeeper',
      ...(code === undefined ? {} : { code }),
      open: () => connection,
      close: (c: typeof connection) => (c.closed = true),
    },
  };
}

describe('LeaseAdmin: each call on its own connection', () => {
  it('gives the work its connection and closes it after', async () => {
    const { connection, session: s } = adminSession();
    await expect(withAdminSession(s, async (c) => c === connection)).resolves.toBe(true);
    expect(connection.closed).toBe(true);
  });

  it('passes a VestaError on as it is, and still closes', async () => {
    const { connection, session: s } = adminSession();
    const error = new VestaError('NOT_FOUND', 'machine id 3 is not allocated');
    await expect(withAdminSession(s, () => Promise.reject(error))).rejects.toBe(error);
    expect(connection.closed).toBe(true);
  });

  it('turns any other failure into the session’s code, naming the store, keeping the cause', async () => {
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:1');
    const failed = await withAdminSession(adminSession('ZOOKEEPER_UNAVAILABLE').session, () =>
      Promise.reject(cause),
    ).catch((e: unknown) => e);
    expect(failed).toMatchObject({
      code: 'ZOOKEEPER_UNAVAILABLE',
      message: 'ZooKeeper request failed: Error: connect ECONNREFUSED 127.0.0.1:1',
      cause,
    });
    const plain = await withAdminSession(adminSession().session, () =>
      Promise.reject(new Error('x')),
    ).catch((e: unknown) => e);
    expect(plain).toMatchObject({ code: 'COORDINATOR_UNAVAILABLE' });
  });
});
