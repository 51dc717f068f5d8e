import { createHmac } from 'node:crypto';
import { VestaError } from '../errors/VestaError.js';
import { base32OfHalves } from './fixedWidthForms.js';
import { formatId } from './formatId.js';
import { ID_HALVES, joinId, splitId } from './idHalves.js';
import type { IdForm } from './IdForm.js';
import { parseId } from './parseId.js';

/** The shortest key accepted, in bytes (UTF-8 for a string). */
export const MIN_SCRAMBLE_KEY_BYTES = 16;

const ROUNDS = 8;
/** What the round keys are derived for: another use of the same secret derives other keys. */
const PURPOSE = 'vesta id scramble v1';

/** murmur3's 32-bit finalizer: every input bit reaches every output bit. */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * A keyed, reversible scramble of the 64 bits of an id: a bijection of 0..2^64-1 onto itself,
 * so scrambled ids stay unique and every one unscrambles to its id with the same key. Ids that
 * are issued one after the other come out unrelated, so they reveal neither the volume of ids
 * nor when they were issued; give them out as coupon codes or public references
 * (`scrambler.format(id, 'base32')`) and read them back (`scrambler.parse(code, 'base32')`).
 *
 * OBFUSCATION, NOT ENCRYPTION: an 8-round Feistel network over two 32-bit halves, whose round
 * keys are derived from the key with HMAC-SHA-512 and whose round function is murmur3's mixer.
 * It keeps outsiders from reading order and volume off ids; it is not a cipher to keep a secret
 * from someone who can gather many pairs of ids and codes. The key is never stored, only the
 * round keys derived from it; keep the key out of logs all the same.
 *
 * INVALID_OPTIONS for a key shorter than {@link MIN_SCRAMBLE_KEY_BYTES} bytes; INVALID_ARGUMENT
 * for an id outside 0..2^64-1 (from `parseId`).
 *
 * @example
 * const coupons = new IdScrambler(process.env.COUPON_KEY);
 * const code = coupons.format(await ids.genId(), 'base32'); // e.g. '7ZQ4M0R2K9X1B'
 * const id = coupons.parse(code, 'base32');                 // the id again
 */
export class IdScrambler {
  readonly #keys: Uint32Array;

  constructor(key: string | Uint8Array) {
    const bytes =
      typeof key === 'string' ? Buffer.from(key, 'utf8') : key instanceof Uint8Array ? key : null;
    if (bytes === null || bytes.length < MIN_SCRAMBLE_KEY_BYTES) {
      throw new VestaError(
        'INVALID_OPTIONS',
        `the scramble key must be a string or bytes of at least ${MIN_SCRAMBLE_KEY_BYTES} bytes` +
          (bytes === null ? `, got ${typeof key}` : `, got ${bytes.length}`),
      );
    }
    const derived = createHmac('sha512', bytes).update(PURPOSE).digest();
    // Two 32-bit keys per round: 16 words, the whole 512-bit digest.
    this.#keys = new Uint32Array(2 * ROUNDS);
    for (let i = 0; i < 2 * ROUNDS; i++) this.#keys[i] = derived.readUInt32BE(4 * i);
  }

  /** The round function: the right half, keyed by xor before and add after a mixing step. */
  #round(half: number, round: number): number {
    const keys = this.#keys;
    return mix32(
      (mix32((half ^ (keys[2 * round] as number)) >>> 0) + (keys[2 * round + 1] as number)) >>> 0,
    );
  }

  /** The halves of the last {@link scrambleHalves}. */
  #high = 0;
  #low = 0;

  /** Runs the rounds forward on `value`'s halves, into {@link #high} and {@link #low}. */
  #scrambleHalves(value: bigint): void {
    splitId(value);
    let left = ID_HALVES.high;
    let right = ID_HALVES.low;
    // #round, inlined: the hot path of every scrambled id.
    const keys = this.#keys;
    for (let k = 0; k < 2 * ROUNDS; k += 2) {
      const mixed = mix32(
        (mix32((right ^ (keys[k] as number)) >>> 0) + (keys[k + 1] as number)) >>> 0,
      );
      const next = (left ^ mixed) >>> 0;
      left = right;
      right = next;
    }
    this.#high = left;
    this.#low = right;
  }

  /** The scrambled id of `id` (bigint or decimal string, see `parseId`). */
  scramble(id: bigint | string): bigint {
    this.#scrambleHalves(parseId(id));
    return joinId(this.#high, this.#low);
  }

  /** The id a scrambled id stands for: the inverse of {@link scramble}. */
  unscramble(scrambled: bigint | string): bigint {
    splitId(parseId(scrambled));
    let left = ID_HALVES.high;
    let right = ID_HALVES.low;
    for (let r = ROUNDS - 1; r >= 0; r--) {
      const previous = (right ^ this.#round(left, r)) >>> 0;
      right = left;
      left = previous;
    }
    return joinId(left, right);
  }

  /** `id` scrambled, as text in `form` (decimal by default; see `formatId`). */
  format(id: bigint | string, form: IdForm = 'decimal'): string {
    if (form !== 'base32') return formatId(this.scramble(id), form);
    // Base32 straight from the halves: no bigint built in between.
    this.#scrambleHalves(parseId(id));
    return base32OfHalves(this.#high, this.#low);
  }

  /** The id of scrambled text in `form`: the inverse of {@link format} (see `parseId`). */
  parse(text: string, form?: IdForm): bigint {
    return this.unscramble(parseId(text, form));
  }
}
