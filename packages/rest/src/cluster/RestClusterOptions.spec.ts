import { StaticMachineIdProvider } from '@vesta/core';
import { caught } from '@vesta/testkit';
import { ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { resolveRestClusterOptions, type RestClusterOptions } from './RestClusterOptions.js';

describe('the options of a REST cluster', () => {
  it('defaults to a worker per core, at most one per machine id of the range', () => {
    expect(resolveRestClusterOptions({ machineIds: { min: 1020, max: 1023 } }, 2).workers).toBe(2);
    expect(resolveRestClusterOptions({ machineIds: { min: 1020, max: 1021 } }, 8).workers).toBe(2);
    expect(
      resolveRestClusterOptions({ machineIdProvider: () => new StaticMachineIdProvider(1000) }, 3)
        .workers,
    ).toBe(3);
    expect(
      resolveRestClusterOptions({ machineIdModule: () => new ContainerModule(() => undefined) }, 3)
        .workers,
    ).toBe(3);
  });

  it('hands the server options through to the workers, frozen', () => {
    const resolved = resolveRestClusterOptions(
      {
        machineIds: { min: 1020, max: 1021 },
        workers: 2,
        port: 0,
        stateDir: false,
        shutdownTimeoutMs: 500,
      },
      2,
    );
    expect(resolved.server).toEqual({ port: 0, stateDir: false, shutdownTimeoutMs: 500 });
    expect(resolved.shutdownTimeoutMs).toBe(500);
    expect(Object.isFrozen(resolved.server)).toBe(true);
  });

  it.each<[string, unknown, string, RegExp]>([
    [
      'more workers than machine ids',
      { machineIds: { min: 1020, max: 1020 }, workers: 2 },
      'INVALID_OPTIONS',
      /2 workers need 2 machine ids, machineIds 1020-1020 holds 1/,
    ],
    [
      'no machine ids',
      { workers: 2 },
      'INVALID_OPTIONS',
      /exactly one of machineIds and machineIdProvider/,
    ],
    [
      'both sources',
      { machineIds: { min: 1020, max: 1021 }, machineIdProvider: () => undefined },
      'INVALID_OPTIONS',
      /exactly one/,
    ],
    [
      'a module beside machine ids',
      { machineIds: { min: 1020, max: 1021 }, machineIdModule: () => undefined },
      'INVALID_OPTIONS',
      /exactly one/,
    ],
    [
      'one machineId',
      { machineIds: { min: 1020, max: 1021 }, machineId: 1000 },
      'INVALID_OPTIONS',
      /not machineId/,
    ],
    ['an empty range', { machineIds: { min: 1021, max: 1020 } }, 'INVALID_OPTIONS', /empty/],
    [
      'a range outside the server range',
      { machineIds: { min: 100, max: 101 } },
      'MACHINE_ID_OUT_OF_RANGE',
      /924 to 1023/,
    ],
    [
      '0 workers',
      { machineIds: { min: 1020, max: 1021 }, workers: 0 },
      'INVALID_OPTIONS',
      /workers/,
    ],
    [
      'an unknown range key',
      { machineIds: { min: 1020, max: 1021, step: 1 } },
      'INVALID_OPTIONS',
      /machineIds/,
    ],
  ])('refuses %s', (_what, options, code, message) => {
    const error = caught(() => resolveRestClusterOptions(options as RestClusterOptions, 2));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });
});
