import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IpListMachineIdProvider, Ipv4LowBitsMachineIdProvider, type Logger } from '@vesta/core';
import { MIN_GRANULARITY_LAYOUT } from '@vesta/core/kit';
import type { SyncIdService } from '@vesta/core';
import { describe, expect, it } from 'vitest';
import { createEmbeddedIdService } from './createEmbeddedIdService.js';
import type { EmbeddedIdServiceOptions } from './EmbeddedIdService.js';
import {
  codeOf,
  codeOfAsync,
  issuableInstant,
  ManualTimeSource,
  ORIGINAL_ID_FORMULAS,
} from '@vesta/testkit';

const AT = Date.UTC(2026, 2, 3, 4, 5, 6, 789);
const silent: Logger = { info() {}, warn() {}, error() {} };

describe('createEmbeddedIdService', () => {
  it('issues genMethod-0 ids under its machine id that decode back to their fields', async () => {
    const ids = await createEmbeddedIdService({ machineId: 923, clock: () => AT, logger: silent });
    const id = await ids.genId();
    expect(ids.expId(id)).toEqual({
      machine: 923,
      seq: 0,
      time: Math.floor((AT - Date.UTC(2025, 0, 1)) / 1000),
      genMethod: 0,
      type: 0,
      version: 0,
    });
    expect(ids.transTime(ids.expId(id).time).getTime()).toBe(AT - (AT % 1000));
    expect(ids.genIdSync()).toBe(id + (1n << 10n));
    expect(ids.info()).toMatchObject({ machine: 923, genMethod: 0, populator: 'sync' });
    await ids.close();
  });

  it.each([924, 1000, 1023])(
    'refuses server machine id %i with MACHINE_ID_OUT_OF_RANGE',
    async (machineId) => {
      expect(await codeOfAsync(() => createEmbeddedIdService({ machineId }))).toBe(
        'MACHINE_ID_OUT_OF_RANGE',
      );
    },
  );

  it('moves the end of the embedded range with serverMachineIdStart', async () => {
    expect(
      await codeOfAsync(() =>
        createEmbeddedIdService({ machineId: 600, serverMachineIdStart: 512 }),
      ),
    ).toBe('MACHINE_ID_OUT_OF_RANGE');
    const ids = await createEmbeddedIdService({
      machineId: 511,
      serverMachineIdStart: 512,
      logger: silent,
    });
    expect(ids.info().machine).toBe(511);
    await ids.close();
  });

  it('takes its machine id from a provider, range-checked for embedded use', async () => {
    const listed = await createEmbeddedIdService({
      machineIdProvider: new IpListMachineIdProvider({
        ips: ['10.1.1.1', '10.1.1.2'],
        localAddresses: ['10.1.1.2'],
      }),
      logger: silent,
    });
    expect(listed.info().machine).toBe(1);
    await listed.close();
    expect(
      await codeOfAsync(() =>
        createEmbeddedIdService({
          machineIdProvider: new Ipv4LowBitsMachineIdProvider('10.9.3.200'),
        }),
      ),
    ).toBe('MACHINE_ID_OUT_OF_RANGE');
  });

  it.each<[string, unknown, string]>([
    ['no options', undefined, 'INVALID_OPTIONS'],
    ['an unknown option', { machineId: 1, machineIds: 2 }, 'INVALID_OPTIONS'],
    ['a genMethod, which the mode fixes', { machineId: 1, genMethod: 2 }, 'INVALID_OPTIONS'],
    [
      'a machineIdRange, which the mode fixes',
      { machineId: 1, machineIdRange: { min: 0, max: 1023 } },
      'INVALID_OPTIONS',
    ],
    ['serverMachineIdStart 0', { machineId: 1, serverMachineIdStart: 0 }, 'INVALID_OPTIONS'],
    ['serverMachineIdStart 1024', { machineId: 1, serverMachineIdStart: 1024 }, 'INVALID_OPTIONS'],
    [
      'a fractional serverMachineIdStart',
      { machineId: 1, serverMachineIdStart: 10.5 },
      'INVALID_OPTIONS',
    ],
    ['a bad populator', { machineId: 1, populator: 'spin' }, 'INVALID_OPTIONS'],
    ['a bad type', { machineId: 1, type: 'max' }, 'INVALID_OPTIONS'],
    ['a bad epoch', { machineId: 1, epoch: 'yesterday' }, 'INVALID_OPTIONS'],
    [
      'both machineId and machineIdProvider',
      { machineId: 1, machineIdProvider: new Ipv4LowBitsMachineIdProvider('10.0.0.1') },
      'INVALID_OPTIONS',
    ],
    ['an invalid layout', { machineId: 1, layout: { seqBits: 30 } }, 'INVALID_LAYOUT'],
  ])('refuses %s', async (_name, options, code) => {
    expect(
      await codeOfAsync(() => createEmbeddedIdService(options as EmbeddedIdServiceOptions)),
    ).toBe(code);
  });

  it("refuses genIdSync with the 'lock' populator with INVALID_OPTIONS and issues through genId", async () => {
    const ids = await createEmbeddedIdService({ machineId: 1, populator: 'lock', logger: silent });
    // @ts-expect-error genIdSync is absent from the type of a 'lock' service
    expect(ids.genIdSync).toBeTypeOf('function');
    // A JavaScript caller, whom no type stops, gets a coded error.
    expect(await codeOfAsync(() => (ids as unknown as SyncIdService).genIdSync())).toBe(
      'INVALID_OPTIONS',
    );
    const [a = 0n, b = 0n] = await Promise.all([ids.genId(), ids.genId()]);
    expect(b).toBeGreaterThan(a);
    await ids.close();
  });

  it.each(['sync', 'lock'] as const)(
    "refuses workerConfig() with populator '%s' with INVALID_OPTIONS",
    async (populator) => {
      const ids = await createEmbeddedIdService({ machineId: 1, populator, logger: silent });
      expect(await codeOfAsync(() => ids.workerConfig())).toBe('INVALID_OPTIONS');
      await ids.close();
    },
  );

  it('describes an atomic service for worker threads, state directory included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vesta-embedded-'));
    try {
      const ids = await createEmbeddedIdService({
        machineId: 9,
        populator: 'atomic',
        type: 'min-granularity',
        stateDir: dir,
        rollbackToleranceMs: 250,
        markWindowMs: 5000,
        maxBatch: 77,
        serverMachineIdStart: 900,
        logger: silent,
      });
      const config = ids.workerConfig();
      expect(config).toMatchObject({
        machineId: 9,
        type: 1,
        version: 0,
        populator: 'atomic',
        stateDir: dir,
        rollbackToleranceMs: 250,
        markWindowMs: 5000,
        maxBatch: 77,
        serverMachineIdStart: 900,
        layout: MIN_GRANULARITY_LAYOUT.widths,
      });
      expect(config.buffer).toBeInstanceOf(SharedArrayBuffer);
      await ids.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('createEmbeddedIdService with named generators', () => {
  it('issues under each name from the one generator, or a name own shape on its own machine id, and closes them all', async () => {
    const ids = await createEmbeddedIdService({
      machineId: 20,
      clock: () => AT,
      logger: silent,
      generators: { names: { orders: {}, clicks: { machineId: 21, type: 'min-granularity' } } },
    });
    const orders = await ids.generator('orders').genIds(100);
    const own = await ids.genIds(100);
    const clicks = await ids.generator('clicks').genIds(100);
    expect(new Set([...orders, ...own, ...clicks]).size).toBe(300);
    expect(ids.expId(orders[0] as bigint)).toMatchObject({ machine: 20, genMethod: 0, type: 0 });
    expect(ids.generator('clicks').expId(clicks[0] as bigint)).toMatchObject({
      machine: 21,
      genMethod: 0,
      type: 1,
    });
    expect(ids.generators().map(({ name, issued }) => [name, issued])).toEqual([
      ['default', 0],
      ['orders', 100],
      ['clicks', 100],
    ]);
    expect(await codeOfAsync(() => ids.generator('users').genId())).toBe('UNKNOWN_GENERATOR');
    const clicksService = ids.generator('clicks');
    await ids.close();
    expect(await codeOfAsync(() => clicksService.genId())).toBe('SERVICE_CLOSED');
    // Both machine ids are free again.
    const again = await createEmbeddedIdService({ machineId: 21, logger: silent });
    await again.close();
  });

  it('refuses a name of its own shape on a machine id outside the embedded range, closing the service', async () => {
    expect(
      await codeOfAsync(() =>
        createEmbeddedIdService({
          machineId: 22,
          logger: silent,
          generators: { names: { clicks: { machineId: 1000, type: 1 } } },
        }),
      ),
    ).toBe('MACHINE_ID_OUT_OF_RANGE');
    const again = await createEmbeddedIdService({ machineId: 22, logger: silent });
    await again.close();
  });
});

describe('createEmbeddedIdService with a layout preset', () => {
  const presets = Object.keys(ORIGINAL_ID_FORMULAS) as (keyof typeof ORIGINAL_ID_FORMULAS)[];

  it.each(presets)(
    'issues %s ids bit for bit as the original formula does, in its epoch',
    async (preset) => {
      const at = issuableInstant(preset);
      const ids = await createEmbeddedIdService({
        layout: preset,
        machineId: 5,
        clock: () => at,
        logger: silent,
      });
      const original = ORIGINAL_ID_FORMULAS[preset];
      expect(await ids.genId()).toBe(original(at, 5, 0));
      expect(ids.genIdSync()).toBe(original(at, 5, 1));
      expect(await ids.genIds(2)).toEqual([original(at, 5, 2), original(at, 5, 3)]);
      expect(ids.expId(original(at, 5, 3))).toMatchObject({ machine: 5, seq: 3, genMethod: 0 });
      expect(ids.info()).toMatchObject({ preset, machine: 5, genMethod: 0 });
      await ids.close();
    },
  );

  it('waits for the next unit when a unit is used up (sonyflake: 256 ids per 10 ms)', async () => {
    const time = new ManualTimeSource(Date.UTC(2026, 0, 1));
    const ids = await createEmbeddedIdService({
      layout: 'sonyflake',
      machineId: 9,
      time,
      logger: silent,
    });
    const first = await ids.genIds(256);
    let served = false;
    const next = ids.genId().finally(() => (served = true));
    await Promise.resolve();
    expect(served).toBe(false);
    await time.advanceUntil(() => served, 'the id of the next 10 ms', 1, 100);
    const id = await next;
    const original = ORIGINAL_ID_FORMULAS.sonyflake;
    expect(first.at(-1)).toBe(original(Date.UTC(2026, 0, 1), 9, 255));
    expect(id).toBe(original(Date.UTC(2026, 0, 1) + 10, 9, 0));
    await ids.close();
  });

  it.each<[string, EmbeddedIdServiceOptions, string]>([
    [
      'a machine id of the server tenth (twitter: 922-1023)',
      { layout: 'twitter', machineId: 922 },
      'MACHINE_ID_OUT_OF_RANGE',
    ],
    [
      'a machine id past a 8-bit field (js-safe)',
      { layout: 'js-safe', machineId: 256 },
      'MACHINE_ID_OUT_OF_RANGE',
    ],
    [
      'a type the preset contradicts',
      { layout: 'twitter', type: 'max-peak', machineId: 1 },
      'INVALID_OPTIONS',
    ],
    ['an unknown preset', { layout: 'snowflake' as 'twitter', machineId: 1 }, 'INVALID_LAYOUT'],
  ])('refuses %s', async (_name, options, code) => {
    expect(await codeOfAsync(() => createEmbeddedIdService({ ...options, logger: silent }))).toBe(
      code,
    );
  });

  it('absorbs a small clock step back and refuses a large one (twitter)', async () => {
    const time = new ManualTimeSource(Date.UTC(2026, 0, 1));
    const ids = await createEmbeddedIdService({
      layout: 'twitter',
      machineId: 11,
      time,
      logger: silent,
    });
    const first = ids.genIdSync();
    time.stepWall(-500);
    const second = ids.genIdSync();
    expect(second).toBeGreaterThan(first);
    time.stepWall(-5000);
    expect(codeOf(() => ids.genIdSync())).toBe('CLOCK_MOVED_BACKWARDS');
    time.stepWall(5500);
    await ids.close();
  });

  it('refuses to issue a js-safe id past 2^53 with TIME_OVERFLOW', async () => {
    // The 31-bit seconds of js-safe run out on 2093-01-19T03:14:08Z.
    const ids = await createEmbeddedIdService({
      layout: 'js-safe',
      machineId: 1,
      clock: () => Date.UTC(2093, 0, 19, 3, 13, 0),
      logger: silent,
    });
    expect(ids.genIdSync()).toBeLessThan(2n ** 53n);
    await ids.close();
    const late = await createEmbeddedIdService({
      layout: 'js-safe',
      machineId: 2,
      clock: () => Date.UTC(2093, 0, 19, 3, 14, 8),
      logger: silent,
    });
    expect(codeOf(() => late.genIdSync())).toBe('TIME_OVERFLOW');
    await late.close();
  });
});
