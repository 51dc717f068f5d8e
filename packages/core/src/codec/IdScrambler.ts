import { createHmac } from 'node:crypto';
import { invalidOptions } from '../errors/VestaError.js';
import { base32OfHalves, formatId, ID_HALVES, joinId, splitId, parseId } from './IdForm.js';
import type { IdForm } from './IdForm.js';

const MIN_SCRAMBLE_KEY_BYTES = 16;

const ROUNDS = 8;
const PURPOSE = 'vesta id scramble v1';

/** murmur3's 32-bit finalizer: every input bit reaches every output bit. */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * A keyed, reversible scramble of an id's 64 bits: consecutive ids come out unrelated (coupon
 * codes, public references). OBFUSCATION, NOT ENCRYPTION: an 8-round Feistel network, no cipher
 * against someone holding many pairs. INVALID_OPTIONS for a key under 16 bytes.
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
      throw invalidOptions(
        `the scramble key must be a string or bytes of at least ${MIN_SCRAMBLE_KEY_BYTES} bytes` +
          (bytes === null ? `, got ${typeof key}` : `, got ${bytes.length}`),
      );
    }
    const derived = createHmac('sha512', bytes).update(PURPOSE).digest();
    this.#keys = Uint32Array.from({ length: 2 * ROUNDS }, (_, i) => derived.readUInt32BE(4 * i));
  }

  #round(half: number, round: number): number {
    const keys = this.#keys;
    return mix32(
      (mix32((half ^ (keys[2 * round] as number)) >>> 0) + (keys[2 * round + 1] as number)) >>> 0,
    );
  }

  #high = 0;
  #low = 0;

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

  /** The scrambled id of `id` (a bigint or a string `parseId` reads). */
  scramble(id: bigint | string): bigint {
    this.#scrambleHalves(parseId(id));
    return joinId(this.#high, this.#low);
  }

  /** The inverse of {@link scramble}. */
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

  /** `id` scrambled, as text in `form` (see `formatId`). */
  format(id: bigint | string, form: IdForm = 'decimal'): string {
    if (form !== 'base32') return formatId(this.scramble(id), form);
    this.#scrambleHalves(parseId(id));
    return base32OfHalves(this.#high, this.#low);
  }

  /** The inverse of {@link format}. */
  parse(text: string, form?: IdForm): bigint {
    return this.unscramble(parseId(text, form));
  }
}
