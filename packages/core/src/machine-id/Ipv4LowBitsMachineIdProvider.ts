import { isIPv4 } from 'node:net';
import { VestaError } from '../errors/VestaError.js';
import { checkMachineIdInRange } from './checkMachineIdInRange.js';
import { localIpv4Addresses } from './localIpv4Addresses.js';
import type { MachineIdLease, MachineIdProvider, MachineIdRequest } from './MachineIdProvider.js';

/**
 * Nacos's default: the low 10 bits of this host's IPv4 address. Unique only among hosts of one
 * /22 network (1024 addresses); across networks two hosts can get the same id. The id must
 * still lie in the mode's range: hosts whose low bits fall in the server range cannot run an
 * embedded service this way.
 */
export class Ipv4LowBitsMachineIdProvider implements MachineIdProvider {
  readonly #address: string | undefined;

  /** @param address the address to use. @default this host's first non-loopback IPv4 address */
  constructor(address?: string) {
    if (address !== undefined && !isIPv4(address)) {
      throw new VestaError('INVALID_OPTIONS', `${JSON.stringify(address)} is not an IPv4 address`);
    }
    this.#address = address;
  }

  async acquire(request: MachineIdRequest): Promise<MachineIdLease> {
    const address = this.#address ?? localIpv4Addresses()[0];
    if (address === undefined)
      throw new VestaError('MACHINE_ID_NOT_FOUND', 'this host has no IPv4 address');
    const octets = address.split('.').map(Number);
    const low10 = (((octets[2] ?? 0) & 0b11) << 8) | (octets[3] ?? 0);
    return { machineId: checkMachineIdInRange(low10, request.range, `machine id from ${address}`) };
  }
}
