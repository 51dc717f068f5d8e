import { caughtAsync } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import type { Flags } from './addSchemaFlags.js';
import { planRestWorkers as planFromFlags } from './restWorkers.js';

/** The plan of the flags, as the command makes it; a refusal as a rejection. */
function planRestWorkers(flags: Flags, cores: number): Promise<ReturnType<typeof planFromFlags>> {
  return new Promise((resolve) => resolve(planFromFlags(flags, cores)));
}

describe('the worker count of vesta rest', () => {
  it.each<[string, Flags, number, object]>([
    ['the cores with a range that holds them', { machineIds: '1020-1023' }, 2, { workers: 2 }],
    ['--workers within the range', { machineIds: '1020-1023', workers: '4' }, 2, { workers: 4 }],
    [
      'one worker per id of a range smaller than the cores',
      { machineIds: '1020-1021' },
      8,
      { workers: 2 },
    ],
    [
      'one process with --coordinator and no --workers (its key unsuffixed)',
      { coordinator: 'redis://r:6379' },
      3,
      { workers: 1, source: 'coordinator' },
    ],
    [
      '--workers with --coordinator',
      { coordinator: 'postgres://db/app', workers: '2' },
      8,
      { workers: 2, source: 'coordinator' },
    ],
    ['1 on one given machine id', { machineId: '1000' }, 4, { workers: 1, source: 'single' }],
    ['1 on the default machine id', {}, 4, { workers: 1, source: 'single' }],
    [
      '1 on one machine id with --workers 1',
      { machineId: '1000', workers: '1' },
      4,
      { workers: 1 },
    ],
  ])('is %s', async (_what, flags, cores, expected) => {
    expect(await planRestWorkers(flags, cores)).toMatchObject(expected);
  });

  it('says why it serves from fewer processes than cores', async () => {
    expect(await planRestWorkers({ machineId: '1000' }, 4)).toMatchObject({
      note: expect.stringMatching(
        /^serving from 1 process of 4 cores: one machine id cannot be shared/,
      ) as unknown,
    });
    expect(await planRestWorkers({ machineIds: '1020-1020' }, 2)).toMatchObject({
      workers: 1,
      note: expect.stringContaining('holds 1 id(s)') as unknown,
    });
    expect(await planRestWorkers({ machineIds: '1020-1023' }, 2)).not.toHaveProperty('note');
  });

  it.each<[string, Flags, string, RegExp]>([
    [
      'more workers than ids',
      { machineIds: '1020-1020', workers: '2' },
      'INVALID_OPTIONS',
      /--workers 2 needs 2 machine ids, --machine-ids 1020-1020 holds 1/,
    ],
    [
      'workers on one machine id',
      { machineId: '1000', workers: '2' },
      'INVALID_OPTIONS',
      /needs a machine id per worker/,
    ],
    [
      'workers on the default machine id',
      { workers: '3' },
      'INVALID_OPTIONS',
      /needs a machine id per worker/,
    ],
    [
      '--machine-ids with --machine-id',
      { machineIds: '1020-1021', machineId: '1000' },
      'INVALID_OPTIONS',
      /one of --machine-id, --machine-ids and --coordinator/,
    ],
    [
      '--machine-ids with --coordinator',
      { machineIds: '1020-1021', coordinator: 'zookeeper://zk:2181' },
      'INVALID_OPTIONS',
      /one of/,
    ],
    ['a range that is no range', { machineIds: '1020' }, 'INVALID_OPTIONS', /must be min-max/],
    ['an empty range', { machineIds: '1021-1020' }, 'INVALID_OPTIONS', /empty/],
    [
      'a range beyond the server range',
      { machineIds: '1000-1024' },
      'MACHINE_ID_OUT_OF_RANGE',
      /924 to 1023/,
    ],
    [
      'a range below the server range',
      { machineIds: '900-930' },
      'MACHINE_ID_OUT_OF_RANGE',
      /924 to 1023/,
    ],
    ['0 workers', { machineIds: '1020-1021', workers: '0' }, 'INVALID_OPTIONS', /--workers/],
    [
      'workers that are no number',
      { machineIds: '1020-1021', workers: '2x' },
      'INVALID_OPTIONS',
      /--workers/,
    ],
  ])('refuses %s', async (_what, flags, code, message) => {
    const error = await caughtAsync(() => planRestWorkers(flags, 2));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });
});
