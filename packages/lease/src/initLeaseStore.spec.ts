import { VestaError } from '@vesta/core';
import { describe, expect, it } from 'vitest';
import { initLeaseStore, type LeaseStoreInitOutcome } from './LeaseAdmin.js';

/** A store whose attempts answer `outcomes` in turn, recording the era each was given. */
function store(...outcomes: LeaseStoreInitOutcome[]) {
  const eras: string[] = [];
  const attempt = async (era: string): Promise<LeaseStoreInitOutcome> => {
    eras.push(era);
    return outcomes.shift() ?? { created: true };
  };
  return { attempt, eras };
}

describe('initLeaseStore', () => {
  it('reports the era the store created and where', async () => {
    const { attempt, eras } = store({ created: true });
    const init = await initLeaseStore('Redis under vesta', attempt);
    expect(init).toEqual({ era: eras[0], where: 'Redis under vesta' });
    expect(eras).toHaveLength(1);
  });

  it('refuses a store with history with COORDINATOR_NOT_NEW, naming what it holds', async () => {
    const { attempt } = store({ found: ['{vesta}:era', '{vesta}:ids'] });
    const error = await initLeaseStore('Redis under vesta', attempt).catch((e: unknown) => e);
    expect(VestaError.is(error) && error.code).toBe('COORDINATOR_NOT_NEW');
    expect(String(error)).toContain('Redis under vesta is not new');
    expect(String(error)).toContain('it holds {vesta}:era, {vesta}:ids');
  });

  it('reads again with a fresh era after a race, then reports what it found', async () => {
    const { attempt, eras } = store('raced', { found: ['/vesta/era'] });
    const error = await initLeaseStore('ZooKeeper under /vesta', attempt).catch((e: unknown) => e);
    expect(String(error)).toContain('it holds /vesta/era');
    expect(eras).toHaveLength(2);
    expect(new Set(eras).size).toBe(2);
  });

  it('gives up after a few races with COORDINATOR_NOT_NEW', async () => {
    const { attempt, eras } = store('raced', 'raced', 'raced', 'raced', 'raced', 'raced');
    const error = await initLeaseStore('etcd under /vesta', attempt).catch((e: unknown) => e);
    expect(VestaError.is(error) && error.code).toBe('COORDINATOR_NOT_NEW');
    expect(String(error)).toContain('changed while being declared new');
    expect(eras).toHaveLength(5);
  });
});
