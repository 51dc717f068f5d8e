import { describe, expect, it } from 'vitest';
import { VestaError } from '../errors/VestaError.js';
import { EMBEDDED_MACHINE_ID_RANGE, SERVER_MACHINE_ID_RANGE } from '../layout/machineRanges.js';
import { Ipv4LowBitsMachineIdProvider } from './IpListMachineIdProvider.js';
import { codeOfAsync } from '@vesta/testkit';

const EMBEDDED = { range: EMBEDDED_MACHINE_ID_RANGE, genMethod: 0, type: 0 };
const SERVERS = { range: SERVER_MACHINE_ID_RANGE, genMethod: 2, type: 0 };

describe('Ipv4LowBitsMachineIdProvider', () => {
  it.each([
    ['10.0.0.0', 0],
    ['10.0.0.255', 255],
    ['10.0.1.0', 256],
    ['192.168.7.9', 777],
    ['172.16.251.1', 769],
    ['10.0.3.155', 923],
  ])('takes the low 10 bits of %s as embedded machine id %i', async (address, expected) => {
    expect(await new Ipv4LowBitsMachineIdProvider(address).acquire(EMBEDDED)).toEqual({
      machineId: expected,
    });
  });

  it.each([
    ['10.0.3.156', 924],
    ['10.0.3.255', 1023],
    ['192.168.255.200', 968],
  ])(
    'refuses %s (low bits %i, a server id) for an embedded service with MACHINE_ID_OUT_OF_RANGE',
    async (address, low) => {
      const provider = new Ipv4LowBitsMachineIdProvider(address);
      let caught: unknown;
      try {
        await provider.acquire(EMBEDDED);
      } catch (error) {
        caught = error;
      }
      expect(VestaError.is(caught, 'MACHINE_ID_OUT_OF_RANGE')).toBe(true);
      expect((caught as VestaError).details).toMatchObject({ machineId: low });
      expect((await provider.acquire(SERVERS)).machineId).toBe(low);
    },
  );

  it.each(['10.0.0', '::1', '10.0.0.256', 'localhost', ''])(
    'rejects %j with INVALID_OPTIONS',
    async (address) => {
      expect(await codeOfAsync(() => new Ipv4LowBitsMachineIdProvider(address))).toBe(
        'INVALID_OPTIONS',
      );
    },
  );

  it("uses one of this host's IPv4 addresses when none is given", async () => {
    const code = await codeOfAsync(() => new Ipv4LowBitsMachineIdProvider().acquire(SERVERS));
    expect([undefined, 'MACHINE_ID_OUT_OF_RANGE', 'MACHINE_ID_NOT_FOUND']).toContain(code);
  });
});
