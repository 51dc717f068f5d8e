import { UUID7, uuid7Check } from './uuid7Bits.js';
import { parseUuid, uuidText } from './uuidForms.js';

/** What a UUID tells: its version, and for a v7 its time; for one of ours, its issuer too. */
export interface UuidFields {
  /** The canonical text. */
  readonly uuid: string;
  /** The version nibble (7 for a time-ordered UUIDv7; 4 for a random one...). */
  readonly version: number;
  /** Whether the variant bits are RFC 9562's (0b10). */
  readonly rfc9562: boolean;
  /** A v7 UUID's Unix time in ms (any issuer's); absent for other versions. */
  readonly unixMs?: number;
  /** `unixMs` as an ISO 8601 date. */
  readonly date?: string;
  /** Whether its check matches a Vesta UUIDv7's (see `UUID7`); only then are the fields below present. */
  readonly vesta: boolean;
  readonly counter?: number;
  readonly machine?: number;
  readonly genMethod?: number;
  /** The id type of the service that issued it (0 or 1). */
  readonly type?: number;
  /** The id version bit of the service that issued it (0 or 1). */
  readonly idVersion?: number;
}

const bits = (n: bigint, low: number, width: number): number =>
  Number((n >> BigInt(low)) & ((1n << BigInt(width)) - 1n));

/** Decodes a UUID (text in any form, or 16 bytes); INVALID_ARGUMENT for what is not one. */
export function decodeUuid(value: string | Uint8Array): UuidFields {
  const n = parseUuid(value);
  const uuid = uuidText(n);
  const version = bits(n, 76, 4);
  const rfc9562 = bits(n, 62, 2) === 0b10;
  if (version !== 7) return { uuid, version, rfc9562, vesta: false };
  const unixMs = bits(n, 80, 48);
  const date = new Date(unixMs).toISOString();
  const counter = bits(n, 64, 12) * 2 ** 10 + bits(n, 52, 10);
  const machine = bits(n, 36, UUID7.machineBits);
  const flags = bits(n, 32, 4);
  const random = bits(n, 0, UUID7.randomBits);
  const vesta = rfc9562 && bits(n, 20, 12) === uuid7Check(unixMs, counter, machine, flags, random);
  if (!vesta) return { uuid, version, rfc9562, unixMs, date, vesta };
  const genMethod = flags >> 2;
  const type = (flags >> 1) & 1;
  const idVersion = flags & 1;
  return {
    ...{ uuid, version, rfc9562, unixMs, date, vesta },
    ...{ counter, machine, genMethod, type, idVersion },
  };
}
