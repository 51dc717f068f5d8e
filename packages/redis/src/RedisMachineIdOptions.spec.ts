import { join } from 'node:path';
import { ManualTimeSource, optionsTableMismatches } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { RedisAdmin } from './redisCoordinator.js';
import { RedisMachineIdProvider } from './RedisMachineIdProvider.js';
import { redisMachineIdOptions, redisOptions } from './RedisMachineIdOptions.js';

const url = 'redis://127.0.0.1:6379';

describe('resolveRedisMachineIdOptions', () => {
  it.each([
    [{ url: '127.0.0.1:6379' }],
    [{ url: 'http://127.0.0.1:6379' }],
    [{ url, prefix: 'has space' }],
    [{ url, prefix: '' }],
    [{ url, fenceAfterMs: 100, refreshIntervalMs: 100 }],
    [{ url, fenceAfterMs: 1000, leaseTtlMs: 999 }],
    [{ url, fenceAfterMs: 800, refreshIntervalMs: 100, reclaimAfterMs: 1000 }],
    [{ url, minReplicas: -1 }],
    [{ url: `${url}?minReplicas=-1` }],
    [{ url: `${url}?minReplicas=one` }],
    [{ url: `${url}?db=1` }],
    [{ url: `${url}?logger=x` }],
    [{ url: `${url}?prefix=a&prefix=b` }],
    [{ url: `${url}?minReplicas=1`, minReplicas: 2 }],
    [{ url: 'redis+sentinel://127.0.0.1:26379' }],
    [{ url: 'redis+sentinel://127.0.0.1:99999/ids' }],
    [{ url: 'redis+sentinel://127.0.0.1:26379,/ids' }],
    [{ url: 'redis://u:%zz@h' }],
    [{ url: 'redis+sentinel://u:%zz@h/m' }],
    [{ url: 'redis+sentinel://h/m%zz' }],
    [{ url: `${url}?path=/a&path=/b` }],
    [{ url: `${url}?path=` }],
    [{ url: 'redis+sentinel://h/m?sentinelPassword=a&sentinelPassword=b' }],
    [{ url, bogus: 1 }],
    [{ url, fallbackToCache: true }],
    [{ url, time: new ManualTimeSource(), clock: () => 0 }],
  ])('rejects %j with INVALID_OPTIONS', (options) => {
    expect(() => new RedisMachineIdProvider(options as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
  });

  it('fills the defaults from the fencing bound, and freezes the result', () => {
    const o = redisOptions.resolve({ url, fenceAfterMs: 4000, maxClockSkewMs: 200 });
    expect(o).toMatchObject({
      prefix: 'vesta',
      refreshIntervalMs: 2000,
      leaseTtlMs: 6000,
      ownerWaitMs: 8000,
      eraWaitMs: 4000 + 400 + 1000,
      reclaimAfterMs: 120_000,
      operationTimeoutMs: 2000,
    });
    // Unset: decided at start from the primary's replicas.
    expect(o.minReplicas).toBeUndefined();
    expect(o).not.toHaveProperty('fallbackToCache');
    expect(Object.isFrozen(o)).toBe(true);
  });

  it('takes any option a library user has from the URL’s query, typed as declared', () => {
    const o = redisOptions.resolve({
      url: `${url}/2?prefix=prod&minReplicas=1&fenceAfterMs=6000&key=7`,
      // The same value both ways is no contradiction.
      prefix: 'prod',
    });
    expect(o).toMatchObject({ prefix: 'prod', minReplicas: 1, fenceAfterMs: 6000, key: '7' });
    expect(o.target).toMatchObject({ sentinel: false, where: '127.0.0.1:6379' });
    expect(o.target.client).toMatchObject({ host: '127.0.0.1', port: 6379, db: 2 });
    const socket = redisOptions.resolve({
      url: 'redis://localhost/?path=/run/r.sock&prefix=p',
    });
    expect(socket).toMatchObject({
      prefix: 'p',
      target: { where: 'unix:/run/r.sock', client: { path: '/run/r.sock' } },
    });
  });

  it('reads a Sentinel URL: the Sentinels, the master’s name, both credentials', () => {
    const o = redisOptions.resolve({
      url: 'redis+sentinel://:pw@s1:26380,[::1],s3/ids/3?sentinelPassword=spw&minReplicas=0',
    });
    expect(o.minReplicas).toBe(0);
    expect(o.target).toMatchObject({
      sentinel: true,
      where: 'ids via sentinel s1:26380,::1:26379,s3:26379',
    });
    expect(o.target.client).toMatchObject({
      sentinels: [
        { host: 's1', port: 26380 },
        { host: '::1', port: 26379 },
        { host: 's3', port: 26379 },
      ],
      name: 'ids',
      role: 'master',
      password: 'pw',
      sentinelPassword: 'spw',
      db: 3,
    });
  });

  it('reads a raw @ of a Sentinel URL’s password as the password’s, not the host’s', () => {
    const o = redisOptions.resolve({ url: 'redis+sentinel://:p@ss@127.0.0.1:1/m' });
    expect(o.target.client).toMatchObject({
      password: 'p@ss',
      sentinels: [{ host: '127.0.0.1', port: 1 }],
    });
    expect(o.target.where).toBe('m via sentinel 127.0.0.1:1');
  });

  it('drives the marks with the given time source', () => {
    const time = new ManualTimeSource(1_800_000_000_000);
    const o = redisOptions.resolve({ url, time });
    expect(o.time).toBe(time);
    expect(o.clock()).toBe(1_800_000_000_000);
  });

  it('checks the admin’s url and prefix the same way', () => {
    expect(() => new RedisAdmin({ url: 'nohost' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    expect(() => new RedisAdmin({ url, prefix: 'a b' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    expect(() => new RedisAdmin({ url, timeoutMs: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    expect(() => new RedisAdmin({ url, bogus: 1 } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    expect(() => new RedisAdmin({ url: `${url}?bogus=1` })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    // The provider's URL serves the admin: its prefix counts, its other options are left.
    expect(() => new RedisAdmin({ url: `${url}?prefix=prod&minReplicas=1` })).not.toThrow();
  });
});

describe('the README', () => {
  it('says in its options table what the declaration says: every option, the required ones, each literal default', () => {
    expect(
      optionsTableMismatches(join(import.meta.dirname, '../README.md'), redisMachineIdOptions),
    ).toEqual([]);
  });
});
