import 'reflect-metadata';
import {
  capturingLogger,
  caughtAsync,
  codeOf,
  codeOfAsync,
  ManualTimeSource,
} from '@vesta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createIdService } from '../service/createIdService.js';
import type { IdService } from '../service/IdService.js';
import type { IdServiceOptions } from '../service/IdServiceOptions.js';
import { DEFAULT_EPOCH_MS } from '../time/parseEpoch.js';
import { IdGenerators, type CreateOwnIdService, type IdGeneratorsOptions } from './IdGenerators.js';

const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

function base(options: Partial<IdServiceOptions> = {}): IdServiceOptions {
  return {
    machineId: 7,
    time: new ManualTimeSource(DEFAULT_EPOCH_MS + 5_000_000),
    logger: capturingLogger(),
    hostLockScope: `generators-${process.pid}-${Math.random()}`,
    ...options,
  };
}

async function generators(
  options: IdGeneratorsOptions,
  baseOptions: IdServiceOptions = base(),
): Promise<IdGenerators> {
  const service = await createIdService(baseOptions);
  opened.push(service);
  const createOwn: CreateOwnIdService = (own) => createIdService({ ...baseOptions, ...own });
  const made = await IdGenerators.create(service, options, createOwn);
  opened.push(made);
  return made;
}

describe('IdGenerators', () => {
  it('issues every shared name from the one generator, so ids are unique across names', async () => {
    const g = await generators({ names: ['orders', 'users'] });
    const all: bigint[] = [];
    for (let i = 0; i < 2000; i++) {
      all.push(await g.get('orders').genId(), ...(await g.get('users').genIds(3)));
      all.push(await g.get('default').genId());
    }
    expect(new Set(all).size).toBe(all.length);
    expect(g.get('orders').expId(all[0] as bigint).machine).toBe(7);
    expect(g.list()).toEqual([
      { name: 'default', shared: true, machine: 7, type: 0, issued: 2000 },
      { name: 'orders', shared: true, machine: 7, type: 0, issued: 2000 },
      { name: 'users', shared: true, machine: 7, type: 0, issued: 6000 },
    ]);
  });

  it('refuses an unknown name with UNKNOWN_GENERATOR and a malformed one with INVALID_ARGUMENT', async () => {
    const g = await generators({ names: ['orders'] });
    expect(codeOf(() => g.get('payments'))).toBe('UNKNOWN_GENERATOR');
    for (const bad of ['', '-x', 'a b', 'x'.repeat(65), 'ö', '../etc']) {
      expect(codeOf(() => g.get(bad))).toBe('INVALID_ARGUMENT');
    }
  });

  it('finds a configured name, and nothing (no throw) for an unknown or malformed one', async () => {
    const g = await generators({ names: ['orders'] });
    expect(g.find('orders')).toBe(g.get('orders'));
    expect(g.find('default')).toBe(g.get('default'));
    expect(g.find('payments')).toBeUndefined();
    expect(g.find('bad name')).toBeUndefined();
    const onDemand = await generators({ onDemand: true, maxNames: 2 }, base({ machineId: 9 }));
    expect(onDemand.find('a')).toBe(onDemand.get('a'));
    expect(onDemand.find('b')).toBeUndefined();
  });

  it('creates names on demand up to maxNames, sharing the generator', async () => {
    const g = await generators({ onDemand: true, maxNames: 3 });
    const a = await g.get('a').genId();
    const b = await g.get('b').genId();
    expect(a).not.toBe(b);
    expect(codeOf(() => g.get('c'))).toBe('UNKNOWN_GENERATOR');
    expect(g.list().map((n) => n.name)).toEqual(['default', 'a', 'b']);
  });

  it('gives a name with its own type its own service on its own machine id, disjoint from the rest', async () => {
    const g = await generators({
      names: { orders: {}, clicks: { type: 'min-granularity', machineId: 8 } },
    });
    const clicks = await g.get('clicks').genIds(100);
    const orders = await g.get('orders').genIds(100);
    expect(g.get('clicks').expId(clicks[0] as bigint)).toMatchObject({ machine: 8, type: 1 });
    expect(g.get('orders').expId(orders[0] as bigint)).toMatchObject({ machine: 7, type: 0 });
    expect(new Set([...clicks, ...orders]).size).toBe(200);
    expect(g.list().find((n) => n.name === 'clicks')).toMatchObject({ shared: false, machine: 8 });
  });

  it('refuses a name with its own shape but no machine id of its own', async () => {
    expect(await codeOfAsync(() => generators({ names: { clicks: { type: 1 } } }))).toBe(
      'INVALID_OPTIONS',
    );
  });

  it('refuses two generators that could issue the same id (same machine id, type and genMethod)', async () => {
    const error = await caughtAsync(() =>
      generators({ names: { clicks: { machineId: 7, epoch: DEFAULT_EPOCH_MS - 1000 } } }),
    );
    expect(error).toMatchObject({
      code: expect.stringMatching(/INVALID_OPTIONS|MACHINE_ID_IN_USE/),
    });
  });

  it('judges generators of another field order at their own bit positions', async () => {
    // Twitter's machine field lies on the default layout's sequence: no fixed bit of one lies on
    // a fixed bit of the other, so ids can meet, though the machine ids differ.
    const error = await caughtAsync(() =>
      generators({ names: { clicks: { layout: 'twitter', machineId: 8 } } }),
    );
    expect(error).toMatchObject({ code: 'INVALID_OPTIONS' });
    expect((error as Error).message).toMatch(/could issue the same id/);
  });

  it('refuses malformed options: bad names, duplicates, unknown keys', async () => {
    for (const options of [
      { names: ['ok', 'bad name'] },
      { names: ['default'] },
      { names: { x: { machineId: 8, colour: 'red' } } },
      { names: ['a'], extra: true },
      { onDemand: 'yes' },
      { names: ['a', 'b'], maxNames: 2 },
    ]) {
      expect(await codeOfAsync(() => generators(options as IdGeneratorsOptions))).toBe(
        'INVALID_OPTIONS',
      );
    }
  });

  it('closes the services of names with their own shape, and those built before a failure', async () => {
    const service: IdService = await createIdService(base());
    opened.push(service);
    const built: IdService[] = [];
    const error = await caughtAsync(() =>
      IdGenerators.create(
        service,
        { names: { a: { machineId: 8, type: 1 }, b: { machineId: 7, type: 0, epoch: 0 } } },
        async (own) => {
          const s = await createIdService({ ...base(), ...own });
          built.push(s);
          return s;
        },
      ),
    );
    expect(error).toMatchObject({ code: expect.stringMatching(/INVALID_OPTIONS/) });
    expect(built).toHaveLength(2);
    for (const s of built) expect(await codeOfAsync(() => s.genId())).toBe('SERVICE_CLOSED');
    expect(typeof (await service.genId())).toBe('bigint');
  });
});
