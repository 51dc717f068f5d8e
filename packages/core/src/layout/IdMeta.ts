import { VestaError } from '../errors/VestaError.js';

/**
 * The widths of an id's fields, from the lowest bit up:
 *
 * ```text
 *  63        62     61-60       59 ........... 30 29 ........ 10 9 ...... 0
 * +---------+------+-----------+-----------------+---------------+---------+
 * | version | type | genMethod |      time       |   sequence    | machine |   max-peak (type 0)
 * +---------+------+-----------+-----------------+---------------+---------+
 *      1       1         2             30               20            10
 * ```
 * min-granularity (type 1) has 40 bits of time (bits 20-59) and 10 of sequence (bits 10-19).
 */
export interface IdLayoutWidths {
  /** Bits of the machine id. @default 10 */
  readonly machineBits: number;
  /** Bits of the sequence within one time unit. 20 (max-peak) or 10 (min-granularity). */
  readonly seqBits: number;
  /** Bits of the time since the epoch. 30 (seconds, max-peak) or 40 (milliseconds, min-granularity). */
  readonly timeBits: number;
  /** Bits of the generation method (0 embedded, 1 central server, 2 REST). @default 2 */
  readonly genMethodBits: number;
  /** Bits of the type: 1, or 0 for a layout whose ids do not say their type. @default 1 */
  readonly typeBits: number;
  /** Bits of the version. @default 1 */
  readonly versionBits: number;
}

/** One field of a layout: where it starts, how wide it is, its largest value. */
export interface IdField {
  readonly bits: number;
  readonly start: number;
  /** The largest value the field holds, `2^bits - 1`. */
  readonly max: number;
  readonly startBig: bigint;
  readonly maxBig: bigint;
}

/** A validated layout: each field's position and limits. Build one with {@link createIdMeta}. */
export interface IdMeta {
  readonly widths: IdLayoutWidths;
  readonly machine: IdField;
  readonly seq: IdField;
  readonly time: IdField;
  readonly genMethod: IdField;
  readonly type: IdField;
  readonly version: IdField;
  /** The sum of all widths (at most 64). */
  readonly totalBits: number;
}

/** No field may be wider than this, so that every field's value is an exact JavaScript number. */
export const MAX_FIELD_BITS = 48;

const FIELD_ORDER = ['machine', 'seq', 'time', 'genMethod', 'type', 'version'] as const;

function checkWidth(name: string, bits: unknown, min: number, max: number): number {
  if (typeof bits !== 'number' || !Number.isInteger(bits) || bits < min || bits > max) {
    throw new VestaError(
      'INVALID_LAYOUT',
      `${name} must be a whole number of bits from ${min} to ${max}, got ${String(bits)}`,
      { details: { field: name, bits } },
    );
  }
  return bits;
}

/**
 * Validates a layout and computes its positions and masks. Machine, sequence and time need at
 * least one bit each, type at most one; the total is at most 64 bits. Throws INVALID_LAYOUT.
 */
export function createIdMeta(widths: IdLayoutWidths): IdMeta {
  const checked: IdLayoutWidths = Object.freeze({
    machineBits: checkWidth('machineBits', widths.machineBits, 1, MAX_FIELD_BITS),
    seqBits: checkWidth('seqBits', widths.seqBits, 1, MAX_FIELD_BITS),
    timeBits: checkWidth('timeBits', widths.timeBits, 1, MAX_FIELD_BITS),
    genMethodBits: checkWidth('genMethodBits', widths.genMethodBits, 0, MAX_FIELD_BITS),
    typeBits: checkWidth('typeBits', widths.typeBits, 0, 1),
    versionBits: checkWidth('versionBits', widths.versionBits, 0, MAX_FIELD_BITS),
  });
  const bitsOf = {
    machine: checked.machineBits,
    seq: checked.seqBits,
    time: checked.timeBits,
    genMethod: checked.genMethodBits,
    type: checked.typeBits,
    version: checked.versionBits,
  };
  const totalBits = FIELD_ORDER.reduce((sum, name) => sum + bitsOf[name], 0);
  if (totalBits > 64) {
    throw new VestaError('INVALID_LAYOUT', `the layout needs ${totalBits} bits; an id has 64`, {
      details: { totalBits },
    });
  }
  let start = 0;
  const fields = {} as Record<(typeof FIELD_ORDER)[number], IdField>;
  for (const name of FIELD_ORDER) {
    const bits = bitsOf[name];
    fields[name] = Object.freeze({
      bits,
      start,
      max: 2 ** bits - 1,
      startBig: BigInt(start),
      maxBig: (1n << BigInt(bits)) - 1n,
    });
    start += bits;
  }
  return Object.freeze({ widths: checked, ...fields, totalBits });
}
