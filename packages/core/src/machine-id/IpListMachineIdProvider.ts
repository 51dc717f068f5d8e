import { isIP, isIPv4 } from 'node:net';
import { networkInterfaces } from 'node:os';
import { invalidOptions, VestaError } from '../errors/VestaError.js';
import { checkMachineIdInRange } from './MachineIdProvider.js';
import type { MachineIdLease, MachineIdProvider, MachineIdRequest } from './MachineIdProvider.js';

export interface IpListMachineIdOptions {
  /** The fleet's addresses; a host's machine id is `offset` + its position in this list. */
  readonly ips: readonly string[];
  /** Added to the position, e.g. 924 for a list of servers. @default the first id of the mode's range */
  readonly offset?: number;
  /** This host's addresses. @default the addresses of its network interfaces */
  readonly localAddresses?: readonly string[];
}

/** Java Vesta's IP-list machine ids: the position of this host's address in a list. */
export class IpListMachineIdProvider implements MachineIdProvider {
  constructor(private readonly options: IpListMachineIdOptions) {
    if (!Array.isArray(options.ips) || options.ips.length === 0) {
      throw invalidOptions('ips must list at least one address');
    }
    for (const [i, ip] of options.ips.entries()) {
      if (isIP(ip) === 0)
        throw invalidOptions(`ips holds ${JSON.stringify(ip)}, not an IP address`);
      if (options.ips.indexOf(ip) < i)
        throw invalidOptions(`ips lists ${ip} twice; two hosts would share an id`);
    }
  }

  async acquire(request: MachineIdRequest): Promise<MachineIdLease> {
    const local = this.options.localAddresses ?? localIpv4Addresses();
    const index = this.options.ips.findIndex((ip) => local.includes(ip));
    if (index < 0) {
      throw new VestaError(
        'MACHINE_ID_NOT_FOUND',
        `none of this host's addresses (${local.join(', ') || 'none'}) is in the configured IP list`,
      );
    }
    const offset = this.options.offset ?? request.range.min;
    return { machineId: checkMachineIdInRange(offset + index, request.range) };
  }
}

/** Nacos's default: the low 10 bits of this host's IPv4 address (unique within one /22). */
export class Ipv4LowBitsMachineIdProvider implements MachineIdProvider {
  /** @param address the address to use. @default this host's first non-loopback IPv4 address */
  constructor(private readonly address?: string) {
    if (address !== undefined && !isIPv4(address)) {
      throw invalidOptions(`${JSON.stringify(address)} is not an IPv4 address`);
    }
  }

  async acquire(request: MachineIdRequest): Promise<MachineIdLease> {
    const address = this.address ?? localIpv4Addresses()[0];
    if (address === undefined)
      throw new VestaError('MACHINE_ID_NOT_FOUND', 'this host has no IPv4 address');
    const octets = address.split('.').map(Number);
    const low10 = (((octets[2] ?? 0) & 0b11) << 8) | (octets[3] ?? 0);
    return { machineId: checkMachineIdInRange(low10, request.range, `machine id from ${address}`) };
  }
}

/** This host's IPv4 addresses, external ones first, loopback last. */
function localIpv4Addresses(): string[] {
  const entries = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  const ipv4 = entries.filter((entry) => entry.family === 'IPv4');
  // A stable sort: each group keeps the order of the interfaces.
  return ipv4.sort((a, b) => Number(a.internal) - Number(b.internal)).map((entry) => entry.address);
}
