import { describe, expect, it } from 'vitest';
import { EMBEDDED_MACHINE_ID_RANGE, SERVER_MACHINE_ID_RANGE } from '../layout/machineRanges.js';
import { StaticMachineIdProvider } from './MachineIdProvider.js';
import { codeOfAsync } from '@vesta/testkit';

const EMBEDDED = { range: EMBEDDED_MACHINE_ID_RANGE, genMethod: 0, type: 0 };
const SERVERS = { range: SERVER_MACHINE_ID_RANGE, genMethod: 1, type: 0 };

describe('StaticMachineIdProvider', () => {
  it.each([
    [0, EMBEDDED],
    [923, EMBEDDED],
    [924, SERVERS],
    [1023, SERVERS],
  ])('gives machine id %i within its range', async (machineId, request) => {
    expect(await new StaticMachineIdProvider(machineId).acquire(request)).toEqual({ machineId });
  });

  it.each([
    [924, EMBEDDED],
    [1023, EMBEDDED],
    [-1, EMBEDDED],
    [923, SERVERS],
    [1024, SERVERS],
    [5.5, EMBEDDED],
  ])(
    'refuses machine id %s outside its range with MACHINE_ID_OUT_OF_RANGE, never masking it',
    async (machineId, request) => {
      expect(await codeOfAsync(() => new StaticMachineIdProvider(machineId).acquire(request))).toBe(
        'MACHINE_ID_OUT_OF_RANGE',
      );
    },
  );
});
