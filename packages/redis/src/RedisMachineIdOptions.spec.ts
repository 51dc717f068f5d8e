import { join } from 'node:path';
import { ManualTimeSource, optionsTableMismatches } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { RedisAdmin } from './RedisAdmin.js';
import { RedisMachineIdProvider } from './RedisMachineIdProvider.js';
import { redisMachineIdOptions, resolveRedisMachineIdOptions } from './RedisMachineIdOptions.js';

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
    [{ url, bogus: 1 }],
    [{ url, fallbackToCache: true }],
    [{ url, time: new ManualTimeSource(), clock: () => 0 }],
  ])('rejects %j with INVALID_OPTIONS', (options) => {
    expect(() => new RedisMachineIdProvider(options as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
  });

  it('fills the defaults from the fencing bound, and freezes the result', () => {
    const o = resolveRedisMachineIdOptions({ url, fenceAfterMs: 4000, maxClockSkewMs: 200 });
    expect(o).toMatchObject({
      prefix: 'vesta',
      refreshIntervalMs: 2000,
      leaseTtlMs: 6000,
      ownerWaitMs: 8000,
      eraWaitMs: 4000 + 400 + 1000,
      reclaimAfterMs: 120_000,
      minReplicas: 0,
      operationTimeoutMs: 2000,
    });
    expect(o).not.toHaveProperty('fallbackToCache');
    expect(Object.isFrozen(o)).toBe(true);
  });

  it('drives the marks with the given time source', () => {
    const time = new ManualTimeSource(1_800_000_000_000);
    const o = resolveRedisMachineIdOptions({ url, time });
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
  });
});

describe('the README', () => {
  it('says in its options table what the declaration says: every option, the required ones, each literal default', () => {
    expect(
      optionsTableMismatches(join(import.meta.dirname, '../README.md'), redisMachineIdOptions),
    ).toEqual([]);
  });
});
