import { randomInt } from 'node:crypto';
import { VestaError } from '../errors/VestaError.js';
import { parseUuid, uuidText } from './uuidForms.js';

/**
 * Where a Vesta UUIDv7 keeps its fields, from bit 127 (RFC 9562 fixes the first, third and fourth):
 * unixMs 127-80 (48 bits); version 79-76 (7); counter's high 12 bits 75-64; variant 63-62 (0b10);
 * counter's low 10 bits 61-52; machine 51-36 (16); genMethod 35-34; the layout's id type 33; the
 * id version bit 32; check 31-20 (12, a hash of every other field); random 19-0 (20, a CSPRNG's).
 * The counter is the ids' claimed sequence: two Vesta UUIDs never collide. The unkeyed check
 * passes 1 in 4,096 foreign v7 UUIDs: it shows the format only.
 */
export const UUID7 = {
  counterBits: 22,
  machineBits: 16,
  genMethodBits: 2,
  randomBits: 20,
} as const;

const RANDOM_MASK = 2 ** UUID7.randomBits - 1;

function mix(h: number, value: number): number {
  const m = Math.imul(h ^ value, 0x85ebca6b);
  return m ^ (m >>> 13);
}

/** The 12-bit check of a Vesta UUIDv7's fields; `flags` are bits 35-32 ({@link uuid7Flags}). */
function uuid7Check(
  unixMs: number,
  counter: number,
  machine: number,
  flags: number,
  random: number,
): number {
  let h = mix(0x9e3779b9, Math.floor(unixMs / 2 ** 24));
  h = mix(h, unixMs % 2 ** 24);
  h = mix(h, counter);
  h = mix(h, machine);
  h = mix(h, flags);
  h = mix(h, random);
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h & 0xfff;
}

const HEX = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const DASH = 0x2d;

function digit(value: number, at: number): number {
  return HEX[(value >>> (4 * at)) & 15] as number;
}

/** Bits 35-32 of a Vesta UUIDv7: genMethod (0-3), type (0-1) and id version (0-1). */
export function uuid7Flags(genMethod: number, type: number, idVersion: number): number {
  return (genMethod << 2) | (type << 1) | idVersion;
}

/** The canonical text of the Vesta UUIDv7 of these fields, each within its width (callers check). */
export function composeUuid7(
  unixMs: number,
  counter: number,
  machine: number,
  flags: number,
  random: number,
): string {
  const r = random & RANDOM_MASK;
  const check = uuid7Check(unixMs, counter, machine, flags, r);
  const msHigh = Math.floor(unixMs / 65_536);
  const msLow = unixMs % 65_536;
  const version = 0x7000 | (counter >>> 10);
  const variant = 0x8000 | ((counter & 0x3ff) << 4) | (machine >>> 12);
  const node = ((machine & 0xfff) << 12) | (flags << 8) | (check >>> 4);
  const tail = ((check & 0xf) << 20) | r;
  const d = digit;
  // One flat string from its 36 character codes: a concatenation of pieces costs twice as much.
  // prettier-ignore
  return String.fromCharCode(
    d(msHigh, 7), d(msHigh, 6), d(msHigh, 5), d(msHigh, 4),
    d(msHigh, 3), d(msHigh, 2), d(msHigh, 1), d(msHigh, 0), DASH,
    d(msLow, 3), d(msLow, 2), d(msLow, 1), d(msLow, 0), DASH,
    d(version, 3), d(version, 2), d(version, 1), d(version, 0), DASH,
    d(variant, 3), d(variant, 2), d(variant, 1), d(variant, 0), DASH,
    d(node, 5), d(node, 4), d(node, 3), d(node, 2), d(node, 1), d(node, 0),
    d(tail, 5), d(tail, 4), d(tail, 3), d(tail, 2), d(tail, 1), d(tail, 0),
  );
}

/** The fields of a Vesta UUIDv7 as `makeUuid` takes them (`decodeUuid` gives them back). */
export interface Uuid7Fields {
  readonly unixMs: number;
  readonly counter: number;
  readonly machine: number;
  readonly genMethod: number;
  readonly type: number;
  readonly idVersion: number;
}

const LIMITS: Record<keyof Uuid7Fields, number> = {
  unixMs: 2 ** 48 - 1,
  counter: 2 ** UUID7.counterBits - 1,
  machine: 2 ** UUID7.machineBits - 1,
  genMethod: 3,
  type: 1,
  idVersion: 1,
};

/** The Vesta UUIDv7 of these fields, each range-checked (INVALID_ARGUMENT naming the field). */
export function makeUuid(fields: Uuid7Fields, random = randomInt(2 ** UUID7.randomBits)): string {
  for (const [name, max] of Object.entries(LIMITS) as [keyof Uuid7Fields, number][]) {
    const value = fields[name];
    if (!Number.isSafeInteger(value) || value < 0 || value > max) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `${name} must be a whole number from 0 to ${max}, got ${String(value)}`,
        { details: { field: name, max } },
      );
    }
  }
  const { unixMs, counter, machine, genMethod, type, idVersion } = fields;
  return composeUuid7(unixMs, counter, machine, uuid7Flags(genMethod, type, idVersion), random);
}

/** Version 7 and variant 0b10 (bits 79-76 and 63-62); FREE: every bit but those and the time. */
const FIXED = (7n << 76n) | (0b10n << 62n);
const FREE = (0xfffn << 64n) | ((1n << 62n) - 1n);

/** The smallest and largest UUIDv7 of a window: `WHERE uuid BETWEEN min AND max`. */
export interface UuidBounds {
  /** Canonical lower-case text: the window's first ms, version 7, variant 0b10, every other bit 0. */
  readonly min: string;
  /** Canonical lower-case text: the window's last ms, version 7, variant 0b10, every other bit 1. */
  readonly max: string;
}

/** The smallest and largest UUIDv7 (any issuer's) of Unix ms `fromMs` to `toMs` inclusive. */
export function uuid7Bounds(fromMs: number, toMs: number): UuidBounds {
  return {
    min: uuidText((BigInt(fromMs) << 80n) | FIXED),
    max: uuidText((BigInt(toMs) << 80n) | FIXED | FREE),
  };
}

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
