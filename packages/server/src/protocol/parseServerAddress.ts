import { VestaError } from '@vesta/core';

export interface ServerAddress {
  readonly host: string;
  readonly port: number;
}

/** Parses `host:port` or `[ipv6]:port`; INVALID_OPTIONS otherwise. */
export function parseServerAddress(value: unknown): ServerAddress {
  const match =
    typeof value === 'string'
      ? /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]]+)):([0-9]{1,5})$/.exec(value)
      : null;
  const port = match === null ? NaN : Number(match[3]);
  if (match === null || port < 1 || port > 65_535) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `a server address must be host:port (port 1-65535), got ${JSON.stringify(value)}`,
    );
  }
  return { host: (match[1] ?? match[2]) as string, port };
}

/** `host:port` (brackets around IPv6). */
export function formatServerAddress(address: ServerAddress): string {
  return address.host.includes(':')
    ? `[${address.host}]:${address.port}`
    : `${address.host}:${address.port}`;
}
