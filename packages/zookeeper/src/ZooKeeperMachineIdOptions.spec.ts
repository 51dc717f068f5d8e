import { ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { ZooKeeperMachineIdProvider } from './ZooKeeperMachineIdProvider.js';
import { resolveZooKeeperMachineIdOptions } from './ZooKeeperMachineIdOptions.js';

describe('resolveZooKeeperMachineIdOptions', () => {
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
  ])('rejects %j with INVALID_OPTIONS', (options) => {
    expect(() => new ZooKeeperMachineIdProvider(options as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
  });
});

describe('the time option', () => {
  it('drives the wall clock of the marks when given', () => {
    const time = new ManualTimeSource(1_800_000_000_000);
    const o = resolveZooKeeperMachineIdOptions({ connect: '127.0.0.1:2181', time });
    expect(o.time).toBe(time);
    expect(o.clock()).toBe(1_800_000_000_000);
  });

  it('is the system time source, on the given clock if any, when not given', () => {
    const o = resolveZooKeeperMachineIdOptions({ connect: '127.0.0.1:2181', clock: () => 42 });
    expect(o.time.now()).toBe(42);
    expect(o.clock()).toBe(42);
    expect(typeof o.time.monotonic()).toBe('number');
  });
});
