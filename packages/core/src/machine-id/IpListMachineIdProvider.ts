import { isIP } from 'node:net';
import { VestaError } from '../errors/VestaError.js';
import { checkMachineIdInRange } from './checkMachineIdInRange.js';
import { localIpv4Addresses } from './localIpv4Addresses.js';
import type { MachineIdLease, MachineIdProvider, MachineIdRequest } from './MachineIdProvider.js';

/** Options of {@link IpListMachineIdProvider}. */
export interface IpListMachineIdOptions {
  /** The fleet's addresses; a host's machine id is `offset` + its position in this list. */
  readonly ips: readonly string[];
  /** Added to the position, e.g. 924 for a list of servers. @default the first id of the mode's range */
  readonly offset?: number;
  /** This host's addresses. @default the addresses of its network interfaces */
  readonly localAddresses?: readonly string[];
}

/**
 * Java Vesta's IP-list machine ids: the position of this host's address in a configured list.
 * A list with duplicates, or a host whose address is not in it, is an error, not a guess.
 */
export class IpListMachineIdProvider implements MachineIdProvider {
  readonly #options: IpListMachineIdOptions;

  constructor(options: IpListMachineIdOptions) {
    if (!Array.isArray(options.ips) || options.ips.length === 0) {
      throw new VestaError('INVALID_OPTIONS', 'ips must list at least one address');
    }
    const seen = new Set<string>();
    for (const ip of options.ips) {
      if (isIP(ip) === 0)
        throw new VestaError(
          'INVALID_OPTIONS',
          `ips holds ${JSON.stringify(ip)}, not an IP address`,
        );
      if (seen.has(ip))
        throw new VestaError(
          'INVALID_OPTIONS',
          `ips lists ${ip} twice; two hosts would share an id`,
        );
      seen.add(ip);
    }
    this.#options = options;
  }

  async acquire(request: MachineIdRequest): Promise<MachineIdLease> {
    const local = this.#options.localAddresses ?? localIpv4Addresses();
    const index = this.#options.ips.findIndex((ip) => local.includes(ip));
    if (index < 0) {
      throw new VestaError(
        'MACHINE_ID_NOT_FOUND',
        `none of this host's addresses (${local.join(', ') || 'none'}) is in the configured IP list`,
      );
    }
    const offset = this.#options.offset ?? request.range.min;
    return { machineId: checkMachineIdInRange(offset + index, request.range) };
  }
}
