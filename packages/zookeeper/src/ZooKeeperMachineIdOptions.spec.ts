import { join } from 'node:path';
import { ManualTimeSource, optionsTableMismatches } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';
import { zooKeeperMachineIdOptions, zooKeeperOptions } from './ZooKeeperMachineIdOptions.js';

describe('zooKeeperOptions.resolve', () => {
  it.each([
    [{ connect: 'nohost' }],
    [{ connect: '127.0.0.1:2181', root: 'relative' }],
    [{ connect: '127.0.0.1:2181', fenceAfterMs: 100, refreshIntervalMs: 100 }],
    [
      {
        connect: '127.0.0.1:2181',
        reclaimAfterMs: 1000,
        fenceAfterMs: 800,
        refreshIntervalMs: 100,
        sessionTimeoutMs: 500,
      },
    ],
    [{ connect: '127.0.0.1:2181', bogus: 1 }],
    [{ connect: '127.0.0.1:2181', time: { now: (): number => 0 } }],
    [{ connect: '127.0.0.1:2181', time: new ManualTimeSource(), clock: () => 0 }],
    [{}],
    [{ url: 'zookeeper://127.0.0.1:2181', connect: '127.0.0.1:2181' }],
    [{ url: 'redis://127.0.0.1:2181' }],
    [{ url: 'zookeeper://127.0.0.1:2181/a', root: '/b' }],
    [{ url: 'zookeeper://127.0.0.1:2181?sessionTimeoutMs=9000', sessionTimeoutMs: 8000 }],
  ])('rejects %j with INVALID_OPTIONS', (options) => {
    expect(() => new ZooKeeperMachineIdProvider(options as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
  });
});

describe('a zookeeper:// url', () => {
  it('gives the servers, the root and any other option of its query', () => {
    const o = zooKeeperOptions.resolve({
      url: 'zookeeper://zk1:2181,zk2:2181/vesta/prod?sessionTimeoutMs=6000&fenceAfterMs=5000',
      key: 'k',
    });
    expect(o).toMatchObject({
      connect: 'zk1:2181,zk2:2181',
      root: '/vesta/prod',
      sessionTimeoutMs: 6_000,
      fenceAfterMs: 5_000,
      key: 'k',
    });
    expect(o).not.toHaveProperty('url');
    expect(zooKeeperOptions.resolve({ url: 'zookeeper://zk1:2181' }).root).toBe('/vesta');
  });
});

describe('the options derived from the session timeout', () => {
  it('waits for a lost session as well as for the fence, and freezes the result', () => {
    const o = zooKeeperOptions.resolve({
      connect: '127.0.0.1:2181',
      sessionTimeoutMs: 15_000,
      maxClockSkewMs: 200,
    });
    expect(o).toMatchObject({
      fenceAfterMs: 8_000,
      ownerWaitMs: 17_000,
      eraWaitMs: 15_000 + 400 + 1_000,
      fallbackToCache: true,
    });
    expect(Object.isFrozen(o)).toBe(true);
  });

  it('refuses a reclaim delay shorter than the session timeout, naming both', () => {
    expect(() =>
      zooKeeperOptions.resolve({
        connect: '127.0.0.1:2181',
        reclaimAfterMs: 20_000,
        sessionTimeoutMs: 30_000,
      }),
    ).toThrow(/reclaimAfterMs \(20000\).*at least sessionTimeoutMs \(30000\)/);
  });
});

describe('the time option', () => {
  it('drives the wall clock of the marks when given', () => {
    const time = new ManualTimeSource(1_800_000_000_000);
    const o = zooKeeperOptions.resolve({ connect: '127.0.0.1:2181', time });
    expect(o.time).toBe(time);
    expect(o.clock()).toBe(1_800_000_000_000);
  });

  it('is the system time source, on the given clock if any, when not given', () => {
    const o = zooKeeperOptions.resolve({ connect: '127.0.0.1:2181', clock: () => 42 });
    expect(o.time.now()).toBe(42);
    expect(o.clock()).toBe(42);
    expect(typeof o.time.monotonic()).toBe('number');
  });
});

describe('the README', () => {
  it('says in its options table what the declaration says: every option, the required ones, each literal default', () => {
    expect(
      optionsTableMismatches(join(import.meta.dirname, '../README.md'), zooKeeperMachineIdOptions),
    ).toEqual([]);
  });
});
