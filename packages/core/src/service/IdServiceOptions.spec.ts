import 'reflect-metadata';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PEAK_LAYOUT, MIN_GRANULARITY_LAYOUT } from '../layout/layoutPresets.js';
import { SERVER_MACHINE_ID_RANGE } from '../layout/machineRanges.js';
import { StaticMachineIdProvider } from '../machine-id/MachineIdProvider.js';
import { createSharedIdState } from '../populator/SharedIdState.js';
import { systemClock } from '../time/TimeSource.js';
import { DEFAULT_EPOCH_MS, parseEpoch } from '../time/parseEpoch.js';
import { createIdService } from './createIdService.js';
import { resolveIdServiceOptions, type IdServiceOptions } from './IdServiceOptions.js';
import { codeOf, codeOfAsync } from '@vesta/testkit';

describe('resolveIdServiceOptions', () => {
  it('fills every default and freezes the result', () => {
    const resolved = resolveIdServiceOptions({ machineId: 5 });
    expect(resolved).toMatchObject({
      type: 0,
      genMethod: 0,
      version: 0,
      epochMs: DEFAULT_EPOCH_MS,
      populator: 'sync',
      clock: systemClock,
      rollbackToleranceMs: 1000,
      stateDir: undefined,
      markWindowMs: 3000,
      maxStartupWaitMs: 10_000,
      maxBatch: 100_000,
      maxLeadMs: 0,
      layout: MAX_PEAK_LAYOUT,
      machineIdRange: { min: 0, max: 923 },
      sharedState: undefined,
      modules: [],
    });
    expect(resolved.machineIdProviders).toEqual([expect.any(StaticMachineIdProvider)]);
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(resolved.modules)).toBe(true);
  });

  it.each([
    ['max-peak', 0, MAX_PEAK_LAYOUT],
    ['min-granularity', 1, MIN_GRANULARITY_LAYOUT],
    [0, 0, MAX_PEAK_LAYOUT],
    [1, 1, MIN_GRANULARITY_LAYOUT],
  ] as const)('takes type %j', (type, expected, meta) => {
    expect(resolveIdServiceOptions({ machineId: 5, type })).toMatchObject({
      type: expected,
      layout: meta,
    });
  });

  it('merges a partial layout into the standard widths of the type', () => {
    const resolved = resolveIdServiceOptions({
      machineId: 5,
      type: 'min-granularity',
      layout: { seqBits: 12, timeBits: 38 },
    });
    expect(resolved.layout.widths).toEqual({
      machineBits: 10,
      seqBits: 12,
      timeBits: 38,
      genMethodBits: 2,
      typeBits: 1,
      versionBits: 1,
    });
  });

  it.each<[string, Partial<IdServiceOptions> & Record<string, unknown>, string]>([
    ['an unknown key', { machineId: 5, machineID: 5 }, 'INVALID_OPTIONS'],
    ['a misspelt key', { machineId: 5, rollbackTolerance: 10 }, 'INVALID_OPTIONS'],
    [
      'a provider without acquire()',
      { machineIdProvider: {} as StaticMachineIdProvider },
      'INVALID_OPTIONS',
    ],
    ['a negative epoch', { machineId: 5, epoch: -1 }, 'INVALID_OPTIONS'],
    ['a fractional epoch', { machineId: 5, epoch: 1.5 }, 'INVALID_OPTIONS'],
    ['an epoch that is no date', { machineId: 5, epoch: 'last tuesday' }, 'INVALID_OPTIONS'],
    ['an invalid Date epoch', { machineId: 5, epoch: new Date(Number.NaN) }, 'INVALID_OPTIONS'],
    ['an epoch object', { machineId: 5, epoch: {} as Date }, 'INVALID_OPTIONS'],
    ['type 2', { machineId: 5, type: 2 as 0 }, 'INVALID_OPTIONS'],
    ['type "max"', { machineId: 5, type: 'max' as 'max-peak' }, 'INVALID_OPTIONS'],
    ['populator "fast"', { machineId: 5, populator: 'fast' as 'sync' }, 'INVALID_OPTIONS'],
    [
      'sharedState without the atomic populator',
      { machineId: 5, sharedState: createSharedIdState() },
      'INVALID_OPTIONS',
    ],
    [
      'sharedState on a plain ArrayBuffer',
      {
        machineId: 5,
        populator: 'atomic',
        sharedState: { buffer: new ArrayBuffer(24) as unknown as SharedArrayBuffer },
      },
      'INVALID_OPTIONS',
    ],
    [
      'a clock that is no function',
      { machineId: 5, clock: 5 as unknown as () => number },
      'INVALID_OPTIONS',
    ],
    ['a negative rollback tolerance', { machineId: 5, rollbackToleranceMs: -1 }, 'INVALID_OPTIONS'],
    [
      'a rollback tolerance over an hour',
      { machineId: 5, rollbackToleranceMs: 3_600_001 },
      'INVALID_OPTIONS',
    ],
    ['a markWindowMs of 0', { machineId: 5, markWindowMs: 0 }, 'INVALID_OPTIONS'],
    ['a fractional maxStartupWaitMs', { machineId: 5, maxStartupWaitMs: 0.5 }, 'INVALID_OPTIONS'],
    ['a maxBatch of 0', { machineId: 5, maxBatch: 0 }, 'INVALID_OPTIONS'],
    ['a negative maxLeadMs', { machineId: 5, maxLeadMs: -1 }, 'INVALID_OPTIONS'],
    ['a fractional maxLeadMs', { machineId: 5, maxLeadMs: 0.5 }, 'INVALID_OPTIONS'],
    ['a maxLeadMs over an hour', { machineId: 5, maxLeadMs: 3_600_001 }, 'INVALID_OPTIONS'],
    ['genMethod 4', { machineId: 5, genMethod: 4 }, 'INVALID_OPTIONS'],
    ['an empty stateDir', { machineId: 5, stateDir: '' }, 'INVALID_OPTIONS'],
    ['modules that are no array', { machineId: 5, modules: {} as [] }, 'INVALID_OPTIONS'],
    ['a layout of 65 bits', { machineId: 5, layout: { timeBits: 31 } }, 'INVALID_LAYOUT'],
    ['a layout with a 0-bit sequence', { machineId: 5, layout: { seqBits: 0 } }, 'INVALID_LAYOUT'],
    [
      'a layout with an unknown width',
      { machineId: 5, layout: { seqbits: 12 } as never },
      'INVALID_OPTIONS',
    ],
    ['a layout that is no object', { machineId: 5, layout: 20 as never }, 'INVALID_OPTIONS'],
    ['options that are no object', null as never, 'INVALID_OPTIONS'],
  ])('rejects %s', (_name, options, code) => {
    expect(codeOf(() => resolveIdServiceOptions(options))).toBe(code);
  });
});

describe('an id service composed from the options', () => {
  // What involves a bound part (the machine id acquired, the range, the layout) is checked
  // once, on the composition, when the service is built.
  it.each<[string, Partial<IdServiceOptions> & Record<string, unknown>, string]>([
    ['a server machine id (924)', { machineId: 924 }, 'MACHINE_ID_OUT_OF_RANGE'],
    ['a server machine id (1023)', { machineId: 1023 }, 'MACHINE_ID_OUT_OF_RANGE'],
    ['a machine id past the field (1024)', { machineId: 1024 }, 'MACHINE_ID_OUT_OF_RANGE'],
    ['a negative machine id', { machineId: -1 }, 'MACHINE_ID_OUT_OF_RANGE'],
    ['a fractional machine id', { machineId: 1.5 }, 'MACHINE_ID_OUT_OF_RANGE'],
    [
      'a machine id given as a string',
      { machineId: '5' as unknown as number },
      'MACHINE_ID_OUT_OF_RANGE',
    ],
    ['neither machineId nor machineIdProvider', {}, 'INVALID_OPTIONS'],
    [
      'both machineId and machineIdProvider',
      { machineId: 5, machineIdProvider: new StaticMachineIdProvider(5) },
      'INVALID_OPTIONS',
    ],
    ['version 2', { machineId: 5, version: 2 }, 'INVALID_OPTIONS'],
    [
      'a layout too narrow for the machine-id range',
      { machineId: 5, layout: { machineBits: 8, seqBits: 22 } },
      'INVALID_OPTIONS',
    ],
  ])('rejects %s', async (_name, options, code) => {
    expect(await codeOfAsync(() => createIdService(options))).toBe(code);
  });

  it('accepts server machine ids for a server range', async () => {
    const service = await createIdService({
      machineId: 924,
      machineIdRange: SERVER_MACHINE_ID_RANGE,
      clock: () => DEFAULT_EPOCH_MS + 5000,
    });
    expect(service.info().machine).toBe(924);
    await service.close();
    expect(
      await codeOfAsync(() =>
        createIdService({ machineId: 923, machineIdRange: SERVER_MACHINE_ID_RANGE }),
      ),
    ).toBe('MACHINE_ID_OUT_OF_RANGE');
  });
});

describe('the epoch option (parseEpoch)', () => {
  it.each<[string, number | Date | string | undefined, number]>([
    ['the default', undefined, DEFAULT_EPOCH_MS],
    ['Unix ms', 1_420_041_600_000, 1_420_041_600_000],
    ['a Date', new Date('2020-01-01T00:00:00Z'), Date.UTC(2020, 0, 1)],
    ['an ISO-8601 string with an offset', '2015-01-01T00:00:00+08:00', 1_420_041_600_000],
  ])('reads %s', (_name, epoch, expected) => {
    expect(parseEpoch(epoch)).toBe(expected);
  });

  it('accepts every whole non-negative safe integer of Unix ms', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (ms) => {
        expect(parseEpoch(ms)).toBe(ms);
      }),
      { numRuns: 50 },
    );
  });
});
