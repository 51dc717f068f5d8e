import 'reflect-metadata';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ID_FORMS } from '../codec/IdForm.js';
import { IdType } from '../layout/IdType.js';
import type { PopulatorKind } from '../populator/IdPopulator.js';
import { capturingLogger, caught, caughtAsync, ManualTimeSource } from '@vesta/testkit';
import { DEFAULT_EPOCH_MS } from '../time/parseEpoch.js';
import { createIdService } from './createIdService.js';
import type { DefaultIdService } from './DefaultIdService.js';
import type { IdServiceOptions } from './IdServiceOptions.js';
import { idAt } from '../testing/idAt.js';
import { layoutWidthsArbitrary } from '../testing/layoutWidthsArbitrary.js';

const EPOCH = DEFAULT_EPOCH_MS;
const YEAR_MS = 365 * 24 * 3600 * 1000;
const MAX_PEAK_EXPIRY = EPOCH + 2 ** 30 * 1000;
const MIN_GRAN_EXPIRY = EPOCH + 2 ** 40;

/** A clock the test sets; it also steps one unit forward whenever the service reports a used-up unit. */
function manualClock(startMs: number): {
  clock: () => number;
  set(ms: number): void;
  get(): number;
} {
  let now = startMs;
  return { clock: () => now, set: (ms) => (now = ms), get: () => now };
}

function build(options: Partial<IdServiceOptions> = {}): Promise<DefaultIdService> {
  return createIdService<DefaultIdService>({ machineId: 7, logger: capturingLogger(), ...options });
}

function expectIncreasing(ids: readonly bigint[]): void {
  for (let i = 1; i < ids.length; i++) {
    if (idAt(ids, i) <= idAt(ids, i - 1))
      throw new Error(`id ${i} (${ids[i]}) is not above id ${i - 1} (${ids[i - 1]})`);
  }
}

/** One id from the service, synchronously where the populator allows it. */
function issuer(service: DefaultIdService, populator: PopulatorKind): () => Promise<bigint> {
  return populator === 'lock' ? () => service.genId() : async () => service.genIdSync();
}

const POPULATORS: PopulatorKind[] = ['sync', 'lock', 'atomic'];

describe('DefaultIdService', () => {
  describe('sequence wrap', () => {
    it.each(POPULATORS)(
      'moves to a later unit after a used-up one and never repeats its ids (%s)',
      async (populator) => {
        const t = manualClock(EPOCH + 5_000_000);
        let exhausted = 0;
        const service = await build({
          type: 'min-granularity',
          populator,
          clock: t.clock,
          observer: {
            onSequenceExhausted: () => {
              exhausted++;
              t.set(t.get() + 1);
            },
          },
        });
        const next = issuer(service, populator);
        const ids: bigint[] = [];
        for (let i = 0; i < 1024 * 3 + 5; i++) ids.push(await next());
        expectIncreasing(ids);
        expect(exhausted).toBe(3);
        const decoded = ids.map((id) => service.expId(id));
        expect(decoded[1023]).toMatchObject({ time: 5_000_000, seq: 1023 });
        // Java Vesta's Sync and Lock populators issue (next unit, seq 0) twice here.
        expect(decoded[1024]).toMatchObject({ time: 5_000_001, seq: 0 });
        expect(decoded[1025]).toMatchObject({ time: 5_000_001, seq: 1 });
        expect(decoded.at(-1)).toMatchObject({ time: 5_000_003, seq: 4 });
        await service.close();
      },
    );

    it.each(POPULATORS)(
      'claims batches across used-up units without repeating an id (%s)',
      async (populator) => {
        const t = manualClock(EPOCH + 5_000_000);
        const service = await build({
          type: 'min-granularity',
          populator,
          clock: t.clock,
          observer: { onSequenceExhausted: () => t.set(t.get() + 1) },
        });
        const ids = [
          ...(await service.genIds(1000)),
          ...(await service.genIds(3000)),
          ...(await service.genIds(7)),
        ];
        expectIncreasing(ids);
        expect(service.expId(idAt(ids, -1))).toMatchObject({
          time: 5_000_003,
          seq: 4006 - 3 * 1024,
        });
        await service.close();
      },
    );

    it('fails with CLOCK_STALLED instead of reusing a unit when the clock never moves on', async () => {
      const time = new ManualTimeSource(EPOCH + 9_000);
      time.freezeWall();
      const service = await build({
        type: 'min-granularity',
        populator: 'lock',
        time,
        rollbackToleranceMs: 0,
      });
      const ids = await service.genIds(1024);
      expectIncreasing(ids);
      const pending = caughtAsync(() => service.genId());
      await time.advance(5_000);
      const error = await pending;
      expect(error.code).toBe('CLOCK_STALLED');
      expect(error.details).toMatchObject({ waitedForTime: 9_001 });
      await service.close();
    });

    it('serves a call that waits for the next unit when time reaches it, on manual time', async () => {
      const time = new ManualTimeSource(EPOCH + 42_000);
      const service = await build({ populator: 'lock', time, layout: { seqBits: 2 } });
      const first = await service.genIds(4);
      let next: bigint | undefined;
      const waiting = service.genId().then((id) => (next = id));
      await time.advance(999);
      expect(next).toBeUndefined();
      await time.advance(1);
      await waiting;
      expect(service.expId(idAt(first, 3))).toMatchObject({ time: 42, seq: 3 });
      expect(service.expId(next as bigint)).toMatchObject({ time: 43, seq: 0 });
      await service.close();
    });
  });

  describe('clock rollback', () => {
    it.each(POPULATORS)(
      'absorbs a step back within the tolerance and keeps ids increasing (%s)',
      async (populator) => {
        const t = manualClock(EPOCH + 60_000);
        const rollbacks: number[] = [];
        const service = await build({
          type: 'min-granularity',
          populator,
          clock: t.clock,
          rollbackToleranceMs: 1000,
          observer: { onClockRollback: (behindMs) => void rollbacks.push(behindMs) },
        });
        const next = issuer(service, populator);
        const ids = [await next(), await next()];
        t.set(EPOCH + 59_000);
        ids.push(await next(), await next());
        expect(service.expId(idAt(ids, 3))).toMatchObject({ time: 60_000, seq: 3 });
        t.set(EPOCH + 60_001);
        ids.push(await next());
        expectIncreasing(ids);
        expect(service.expId(idAt(ids, 4))).toMatchObject({ time: 60_001, seq: 0 });
        expect(rollbacks).toEqual([1000]);
        expect(service.health()).toEqual({ ok: true });
        await service.close();
      },
    );

    it.each(POPULATORS)(
      'refuses with CLOCK_MOVED_BACKWARDS and behindMs beyond the tolerance, then resumes above the last id (%s)',
      async (populator) => {
        const t = manualClock(EPOCH + 60_000);
        const service = await build({
          type: 'min-granularity',
          populator,
          clock: t.clock,
          rollbackToleranceMs: 1000,
        });
        const next = issuer(service, populator);
        const before = await next();
        t.set(EPOCH + 58_500);
        const error = await caughtAsync(next);
        expect(error.code).toBe('CLOCK_MOVED_BACKWARDS');
        expect(error.details).toMatchObject({ behindMs: 1500, toleranceMs: 1000 });
        expect(await caughtAsync(() => service.genIds(3))).toMatchObject({
          code: 'CLOCK_MOVED_BACKWARDS',
        });
        expect(service.health()).toMatchObject({ ok: false, code: 'CLOCK_MOVED_BACKWARDS' });
        t.set(EPOCH + 59_900);
        expect(await next()).toBeGreaterThan(before);
        await service.close();
      },
    );
  });

  describe('time field limits', () => {
    it.each([
      ['max-peak', MAX_PEAK_EXPIRY, 1000],
      ['min-granularity', MIN_GRAN_EXPIRY, 1],
    ] as const)(
      'issues in the last %s unit and then refuses with TIME_OVERFLOW, never wrapping',
      async (type, expiry, unitMs) => {
        const t = manualClock(expiry - unitMs);
        const service = await build({ type, clock: t.clock });
        const last = service.genIdSync();
        expect(service.expId(last).time).toBe(
          service.info().layout.timeBits === 30 ? 2 ** 30 - 1 : 2 ** 40 - 1,
        );
        t.set(expiry);
        expect(caught(() => service.genIdSync()).code).toBe('TIME_OVERFLOW');
        expect((await caughtAsync(() => service.genId())).code).toBe('TIME_OVERFLOW');
        expect((await caughtAsync(() => service.genIds(2))).code).toBe('TIME_OVERFLOW');
        expect(service.health()).toMatchObject({ ok: false, code: 'TIME_OVERFLOW' });
        t.set(expiry + 10 * YEAR_MS);
        expect(caught(() => service.genIdSync()).code).toBe('TIME_OVERFLOW');
        await service.close();
      },
    );

    it.each(['sync', 'lock'] as const)(
      'refuses with TIME_OVERFLOW when the last unit is used up (%s)',
      async (populator) => {
        const t = manualClock(MIN_GRAN_EXPIRY - 1);
        const service = await build({
          type: 'min-granularity',
          populator,
          clock: t.clock,
          observer: { onSequenceExhausted: () => t.set(t.get() + 1) },
        });
        const ids = await service.genIds(1024);
        expect(service.expId(idAt(ids, -1))).toMatchObject({ time: 2 ** 40 - 1, seq: 1023 });
        expect((await caughtAsync(() => service.genId())).code).toBe('TIME_OVERFLOW');
        await service.close();
      },
    );

    it('refuses a clock before the epoch with CLOCK_BEFORE_EPOCH', async () => {
      const service = await build({
        epoch: '2030-01-01T00:00:00Z',
        clock: () => Date.UTC(2029, 11, 31, 23, 59, 59),
      });
      expect(caught(() => service.genIdSync()).code).toBe('CLOCK_BEFORE_EPOCH');
      expect((await caughtAsync(() => service.genIds(1))).code).toBe('CLOCK_BEFORE_EPOCH');
      expect(service.health()).toMatchObject({ ok: false, code: 'CLOCK_BEFORE_EPOCH' });
      await service.close();
    });

    it('issues time 0 at the epoch itself', async () => {
      const service = await build({ clock: () => EPOCH });
      expect(service.expId(service.genIdSync())).toMatchObject({ time: 0, seq: 0, machine: 7 });
      await service.close();
    });

    it.each([
      ['max-peak', MAX_PEAK_EXPIRY],
      ['min-granularity', MIN_GRAN_EXPIRY],
    ] as const)(
      'warns at start-up when less than a year of the %s field is left',
      async (type, expiry) => {
        const logger = capturingLogger();
        const service = await build({
          type,
          logger,
          clock: () => expiry - YEAR_MS + 86_400_000 * 10,
        });
        const warning = logger.warnings.find((w) => w.message.includes('less than a year'));
        expect(warning?.fields).toMatchObject({
          expiry: new Date(expiry).toISOString(),
          daysLeft: 355,
        });
        await service.close();
      },
    );

    it('does not warn when more than a year is left', async () => {
      const logger = capturingLogger();
      const service = await build({ logger, clock: () => MAX_PEAK_EXPIRY - YEAR_MS - 1000 });
      expect(logger.warnings).toEqual([]);
      await service.close();
    });
  });

  describe('expId', () => {
    it.each([
      ['max-peak', 'min-granularity'],
      ['min-granularity', 'max-peak'],
    ] as const)('reads the type from the id: a %s service decodes %s ids', async (own, other) => {
      const clock = () => EPOCH + 123_456_789;
      const mine = await build({ type: own, clock });
      const theirs = await build({ type: other, clock, machineId: 99 });
      const id = theirs.genIdSync();
      expect(mine.expId(id)).toEqual(theirs.expId(id));
      expect(mine.expId(id)).toMatchObject({
        type: other === 'max-peak' ? 0 : 1,
        machine: 99,
        genMethod: 0,
      });
      expect(mine.expId(id).time).toBe(other === 'max-peak' ? 123_456 : 123_456_789);
      await mine.close();
      await theirs.close();
    });

    it.each([1, 2, 3])('decodes ids of genMethod %i', async (genMethod) => {
      const service = await build({ clock: () => EPOCH + 5000 });
      const id = service.makeId({ time: 42, seq: 3, machine: 1000, genMethod, version: 1 });
      expect(service.expId(id)).toEqual({
        machine: 1000,
        seq: 3,
        time: 42,
        genMethod,
        type: 0,
        version: 1,
      });
      expect(service.expId(id.toString())).toEqual(service.expId(id));
      await service.close();
    });

    it("reads an id in any form, and Java's signed decimal of it", async () => {
      const service = await build({ clock: () => EPOCH + 5000, version: 1 });
      const id = service.genIdSync();
      expect(id >= 1n << 63n).toBe(true);
      const fields = service.expId(id);
      const signed = service.formatId(id, 'signed');
      expect(signed.startsWith('-')).toBe(true);
      expect(service.expId(signed)).toEqual(fields);
      for (const form of ID_FORMS) {
        const text = service.formatId(id, form);
        expect(service.parseId(text, form)).toBe(id);
        expect(service.expId(text, form)).toEqual(fields);
      }
      await service.close();
    });

    it.each<[string, unknown]>([
      ['a non-numeric string', 'abc'],
      ["a negative number string below Java's long", '-9223372036854775809'],
      ['a base32 id without its form', '01RX5ZW000007'],
      ['2^64', '18446744073709551616'],
      ['a fraction', '12.5'],
      ['hex', '0xff'],
      ['whitespace', ' 12 '],
      ['an exponent', '1e5'],
      ['the empty string', ''],
      ['a number', 12345],
      ['a negative bigint', -1n],
    ])('rejects %s with INVALID_ARGUMENT', async (_name, value) => {
      const service = await build({ clock: () => EPOCH + 5000 });
      expect(caught(() => service.expId(value as string)).code).toBe('INVALID_ARGUMENT');
      await service.close();
    });
  });

  describe('makeId', () => {
    it('fills machine, genMethod, type and version from the service', async () => {
      const service = await build({
        type: 'min-granularity',
        version: 1,
        clock: () => EPOCH + 5000,
      });
      expect(service.expId(service.makeId({ time: 10, seq: 2 }))).toEqual({
        machine: 7,
        seq: 2,
        time: 10,
        genMethod: 0,
        type: 1,
        version: 1,
      });
      expect(service.expId(service.makeId({ time: 10, seq: 2, type: IdType.MAX_PEAK })).type).toBe(
        0,
      );
      await service.close();
    });

    it('refuses a sequence past its maximum instead of spilling it into the time (as Java Vesta does)', async () => {
      const service = await build({ clock: () => EPOCH + 5000 });
      const error = caught(() => service.makeId({ time: 10, seq: 2 ** 20 }));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.details).toMatchObject({ field: 'seq', max: 2 ** 20 - 1 });
      // What Java Vesta returns here: the sequence's top bit lands in the time, colliding with (time 11, seq 0).
      const spilled = (10n << 30n) | ((2n ** 20n) << 10n) | 7n;
      expect(spilled).toBe(service.makeId({ time: 11, seq: 0 }));
      await service.close();
    });

    it.each<[string, Record<string, unknown>]>([
      ['a machine past 1023', { machine: 1024 }],
      ['a time past 2^30 - 1', { time: 2 ** 30 }],
      ['a genMethod of 4', { genMethod: 4 }],
      ['a version of 2', { version: 2 }],
      ['a type of 2', { type: 2 }],
      ['a negative sequence', { seq: -1 }],
      ['a missing time', { time: undefined }],
      ['a time given as a string', { time: '10' }],
    ])('refuses %s with INVALID_ARGUMENT', async (_name, change) => {
      const service = await build({ clock: () => EPOCH + 5000 });
      expect(caught(() => service.makeId({ time: 10, seq: 1, ...change } as never)).code).toBe(
        'INVALID_ARGUMENT',
      );
      expect(caught(() => service.makeId(null as never)).code).toBe('INVALID_ARGUMENT');
      await service.close();
    });
  });

  describe('transTime', () => {
    it('turns a time field into a date for either type', async () => {
      const service = await build({ clock: () => EPOCH + 5000 });
      expect(service.transTime(86_400).toISOString()).toBe('2025-01-02T00:00:00.000Z');
      expect(service.transTime(86_400, IdType.MIN_GRANULARITY).toISOString()).toBe(
        '2025-01-01T00:01:26.400Z',
      );
      expect(service.transTime(2 ** 30 - 1).getTime()).toBe(MAX_PEAK_EXPIRY - 1000);
      expect(service.transTime(2 ** 40 - 1, IdType.MIN_GRANULARITY).getTime()).toBe(
        MIN_GRAN_EXPIRY - 1,
      );
      await service.close();
    });

    it('agrees with the time of an id it issued', async () => {
      const service = await build({
        type: 'min-granularity',
        clock: () => Date.UTC(2031, 4, 6, 7, 8, 9, 123),
      });
      const id = service.genIdSync();
      expect(service.transTime(service.expId(id).time).toISOString()).toBe(
        '2031-05-06T07:08:09.123Z',
      );
      await service.close();
    });

    it.each<[string, unknown, unknown]>([
      ['a negative time', -1, undefined],
      ['a time past the max-peak field', 2 ** 30, undefined],
      ['a time past the min-granularity field', 2 ** 40, IdType.MIN_GRANULARITY],
      ['a fractional time', 1.5, undefined],
      ['NaN', Number.NaN, undefined],
      ['a time given as a string', '5', undefined],
      ['a bad type', 5, 2],
    ])('rejects %s with INVALID_ARGUMENT', async (_name, time, type) => {
      const service = await build({ clock: () => EPOCH + 5000 });
      expect(caught(() => service.transTime(time as number, type as IdType)).code).toBe(
        'INVALID_ARGUMENT',
      );
      await service.close();
    });
  });

  describe('genIds', () => {
    it.each<[string, unknown]>([
      ['0', 0],
      ['-1', -1],
      ['1.5', 1.5],
      ['one past maxBatch', 101],
      ['a huge count', 2 ** 53],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['NaN', Number.NaN],
      ['a string', '5'],
    ])('rejects a count of %s with INVALID_ARGUMENT', async (_name, count) => {
      const service = await build({ maxBatch: 100, clock: () => EPOCH + 5000 });
      expect((await caughtAsync(() => service.genIds(count as number))).code).toBe(
        'INVALID_ARGUMENT',
      );
      expect(await service.genIds(100)).toHaveLength(100);
      await service.close();
    });
  });

  describe('info', () => {
    it('reports the identity, layout and expiry of the service', async () => {
      const service = await build({
        type: 'min-granularity',
        populator: 'lock',
        maxBatch: 500,
        clock: () => EPOCH + 5000,
      });
      expect(service.info()).toEqual({
        preset: 'vesta-min-granularity',
        machine: 7,
        genMethod: 0,
        type: 1,
        typeName: 'min-granularity',
        version: 0,
        epoch: '2025-01-01T00:00:00.000Z',
        epochMs: EPOCH,
        unitMs: 1,
        expiry: new Date(MIN_GRAN_EXPIRY).toISOString(),
        layout: {
          machineBits: 10,
          seqBits: 10,
          timeBits: 40,
          genMethodBits: 2,
          typeBits: 1,
          versionBits: 1,
        },
        fields: [
          { name: 'machine', bits: 10 },
          { name: 'seq', bits: 10 },
          { name: 'time', bits: 40 },
          { name: 'genMethod', bits: 2 },
          { name: 'type', bits: 1 },
          { name: 'version', bits: 1 },
        ],
        populator: 'lock',
        maxBatch: 500,
      });
      await service.close();
    });

    it('dates the expiry of a max-peak service from its epoch', async () => {
      const service = await build({
        epoch: new Date('2020-06-01T00:00:00Z'),
        clock: () => Date.UTC(2021, 0, 1),
      });
      expect(service.info()).toMatchObject({
        typeName: 'max-peak',
        unitMs: 1000,
        expiry: new Date(Date.UTC(2020, 5, 1) + 2 ** 30 * 1000).toISOString(),
      });
      await service.close();
    });
  });

  describe('close', () => {
    it.each(POPULATORS)(
      'refuses to issue once closed with SERVICE_CLOSED (%s)',
      async (populator) => {
        const service = await build({ populator, clock: () => EPOCH + 5000 });
        await service.close();
        await service.close();
        expect((await caughtAsync(() => service.genId())).code).toBe('SERVICE_CLOSED');
        expect((await caughtAsync(() => service.genIds(2))).code).toBe('SERVICE_CLOSED');
        expect(service.health()).toMatchObject({ ok: false, code: 'SERVICE_CLOSED' });
      },
    );
  });

  it("refuses genIdSync with the 'lock' populator with a coded error", async () => {
    const service = await build({ populator: 'lock', clock: () => EPOCH + 5000 });
    expect(caught(() => service.genIdSync()).code).toBe('INVALID_OPTIONS');
    await service.close();
  });
});

describe('DefaultIdService with a custom layout', () => {
  it('round-trips every field through makeId and expId, and decodes the ids it issues', async () => {
    const layouts = layoutWidthsArbitrary({
      machineBits: [10, 12],
      seqBits: [1, 20],
      timeBits: [24, 32],
      genMethodBits: [0, 3],
      typeBits: [0, 1],
      versionBits: [0, 2],
    });
    await fc.assert(
      fc.asyncProperty(
        layouts,
        fc.constantFrom('max-peak' as const, 'min-granularity' as const),
        fc.record({ machine: fc.nat(), seq: fc.nat(), time: fc.nat(), version: fc.nat() }),
        async (layout, type, raw) => {
          const service = await build({ layout, type, clock: () => EPOCH + 9_000, machineId: 3 });
          const meta = service.info().layout;
          const fields = {
            machine: raw.machine % 2 ** meta.machineBits,
            seq: raw.seq % 2 ** meta.seqBits,
            time: raw.time % 2 ** meta.timeBits,
            version: raw.version % 2 ** meta.versionBits,
          };
          const id = service.makeId(fields);
          expect(id < 1n << 64n).toBe(true);
          expect(service.expId(id)).toEqual({
            ...fields,
            genMethod: 0,
            type: type === 'max-peak' ? 0 : 1,
          });
          expect(caught(() => service.makeId({ ...fields, seq: 2 ** meta.seqBits })).code).toBe(
            'INVALID_ARGUMENT',
          );
          const issued = service.expId(service.genIdSync());
          expect(issued).toMatchObject({
            machine: 3,
            seq: 0,
            time: type === 'max-peak' ? 9 : 9000,
          });
          await service.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});
