import { describe, expect, it } from 'vitest';
import { EMBEDDED_MACHINE_ID_RANGE, SERVER_MACHINE_ID_RANGE } from '../layout/machineRanges.js';
import { IpListMachineIdProvider, type IpListMachineIdOptions } from './IpListMachineIdProvider.js';
import { codeOfAsync } from '@vesta/testkit';

const EMBEDDED = { range: EMBEDDED_MACHINE_ID_RANGE, genMethod: 0, type: 0 };
const SERVERS = { range: SERVER_MACHINE_ID_RANGE, genMethod: 1, type: 0 };
const FLEET = ['10.0.0.1', '10.0.0.2', '10.0.0.3'];

describe('IpListMachineIdProvider', () => {
  it.each([
    ['the first address', ['10.0.0.1'], 0],
    ['the last address', ['127.0.0.1', '10.0.0.3'], 2],
    ['whichever local address is listed', ['192.168.1.5', '10.0.0.2'], 1],
  ])('gives the position of %s in the list', async (_name, localAddresses, expected) => {
    const provider = new IpListMachineIdProvider({ ips: FLEET, localAddresses });
    expect(await provider.acquire(EMBEDDED)).toEqual({ machineId: expected });
  });

  it('starts a server list at the first id of the server range', async () => {
    const provider = new IpListMachineIdProvider({ ips: FLEET, localAddresses: ['10.0.0.3'] });
    expect((await provider.acquire(SERVERS)).machineId).toBe(926);
  });

  it('adds a configured offset to the position', async () => {
    const provider = new IpListMachineIdProvider({
      ips: FLEET,
      offset: 100,
      localAddresses: ['10.0.0.2'],
    });
    expect((await provider.acquire(EMBEDDED)).machineId).toBe(101);
  });

  it('finds IPv6 addresses too', async () => {
    const provider = new IpListMachineIdProvider({
      ips: ['fd00::1', 'fd00::2'],
      localAddresses: ['fd00::2'],
    });
    expect((await provider.acquire(EMBEDDED)).machineId).toBe(1);
  });

  it('fails with MACHINE_ID_NOT_FOUND when no local address is listed', async () => {
    const provider = new IpListMachineIdProvider({
      ips: FLEET,
      localAddresses: ['10.0.0.9', '127.0.0.1'],
    });
    expect(await codeOfAsync(() => provider.acquire(EMBEDDED))).toBe('MACHINE_ID_NOT_FOUND');
    const none = new IpListMachineIdProvider({ ips: FLEET, localAddresses: [] });
    expect(await codeOfAsync(() => none.acquire(EMBEDDED))).toBe('MACHINE_ID_NOT_FOUND');
  });

  it('fails with MACHINE_ID_OUT_OF_RANGE when the position lands outside the range', async () => {
    const provider = new IpListMachineIdProvider({
      ips: FLEET,
      offset: 922,
      localAddresses: ['10.0.0.3'],
    });
    expect(await codeOfAsync(() => provider.acquire(EMBEDDED))).toBe('MACHINE_ID_OUT_OF_RANGE');
  });

  it.each<[string, IpListMachineIdOptions]>([
    ['a list with a duplicate', { ips: ['10.0.0.1', '10.0.0.2', '10.0.0.1'] }],
    ['an empty list', { ips: [] }],
    ['an entry that is no address', { ips: ['10.0.0.1', 'db-host'] }],
    ['a list that is no array', { ips: '10.0.0.1' as unknown as string[] }],
  ])('rejects %s with INVALID_OPTIONS', async (_name, options) => {
    expect(await codeOfAsync(() => new IpListMachineIdProvider(options))).toBe('INVALID_OPTIONS');
  });
});
