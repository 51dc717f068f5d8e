import { networkInterfaces } from 'node:os';

/** This host's IPv4 addresses, external ones first, loopback last. */
export function localIpv4Addresses(): string[] {
  const external: string[] = [];
  const internal: string[] = [];
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (entry.family !== 'IPv4') continue;
      (entry.internal ? internal : external).push(entry.address);
    }
  }
  return [...external, ...internal];
}
