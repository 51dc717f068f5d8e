import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caught } from '@vesta/testkit';
import { formatId, ID_FORMS } from './IdForm.js';
import { IdScrambler } from './IdScrambler.js';
import { defineOptions } from '../options/defineOptions.js';
import { scrambleKeyOption } from '../options/optionTypes.js';

const MAX_U64 = (1n << 64n) - 1n;
const EDGES = [0n, 1n, (1n << 63n) - 1n, 1n << 63n, MAX_U64];
const anyId = fc.oneof(fc.bigInt({ min: 0n, max: MAX_U64 }), fc.constantFrom(...EDGES));
const KEY = 'a coupon key of more than 16 bytes';
const scrambler = new IdScrambler(KEY);

/** How many of the 64 bits differ. */
function bitsApart(a: bigint, b: bigint): number {
  return [...(a ^ b).toString(2)].filter((bit) => bit === '1').length;
}

describe('IdScrambler', () => {
  it('unscrambles every 64-bit value back to itself, and the reverse', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        const scrambled = scrambler.scramble(id);
        expect(scrambled >= 0n && scrambled <= MAX_U64).toBe(true);
        expect(scrambler.unscramble(scrambled)).toBe(id);
        expect(scrambler.scramble(scrambler.unscramble(id))).toBe(id);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives distinct ids distinct scrambled ids', () => {
    fc.assert(
      fc.property(anyId, anyId, (a, b) => {
        fc.pre(a !== b);
        expect(scrambler.scramble(a)).not.toBe(scrambler.scramble(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('combines with every form: the text reads back to the id with the same key', () => {
    fc.assert(
      fc.property(anyId, fc.constantFrom(...ID_FORMS), (id, form) => {
        const text = scrambler.format(id, form);
        expect(text).toBe(formatId(scrambler.scramble(id), form));
        expect(scrambler.parse(text, form)).toBe(id);
      }),
    );
  });

  it('hides the order and closeness of consecutive ids', () => {
    const base = 1_234_567n << 30n;
    const scrambled = Array.from({ length: 200 }, (_, i) => scrambler.scramble(base + BigInt(i)));
    expect(new Set(scrambled).size).toBe(200);
    const rises = scrambled.slice(1).filter((s, i) => s > (scrambled[i] as bigint)).length;
    // Sorted input comes out in no order: about half the neighbours rise (bounds far from 0 and 199).
    expect(rises).toBeGreaterThan(60);
    expect(rises).toBeLessThan(140);
    // Neighbours differ in about half of their bits, not in the few low ones.
    const apart = scrambled.slice(1).map((s, i) => bitsApart(s, scrambled[i] as bigint));
    expect(apart.reduce((a, b) => a + b, 0) / apart.length).toBeGreaterThan(24);
  });

  it('depends on the key: another key gives other ids, and cannot read them back', () => {
    const other = new IdScrambler(`${KEY}!`);
    const id = 987_654_321_012_345n;
    expect(other.scramble(id)).not.toBe(scrambler.scramble(id));
    expect(other.unscramble(scrambler.scramble(id))).not.toBe(id);
    expect(new IdScrambler(Buffer.from(KEY)).scramble(id)).toBe(scrambler.scramble(id));
  });

  it('gives the same scrambled ids for the same key in every run (a pinned example)', () => {
    // Fixed so that a change of the derivation, which would orphan every code given out, fails here.
    expect(scrambler.format(0n, 'base32')).toBe('9WKPVEA0E8WP6');
  });

  it.each<[string, unknown]>([
    ['a short key', 'fifteen bytes..'],
    ['an empty key', ''],
    ['a number', 12345678],
    ['undefined', undefined],
  ])('refuses %s with INVALID_OPTIONS', (_name, key) => {
    expect(caught(() => new IdScrambler(key as string)).code).toBe('INVALID_OPTIONS');
  });

  it('refuses ids outside 0..2^64-1 and malformed text with INVALID_ARGUMENT', () => {
    expect(caught(() => scrambler.scramble(-1n)).code).toBe('INVALID_ARGUMENT');
    expect(caught(() => scrambler.unscramble(1n << 64n)).code).toBe('INVALID_ARGUMENT');
    expect(caught(() => scrambler.parse('U000000000000', 'base32')).code).toBe('INVALID_ARGUMENT');
  });

  it('keeps the key out of its JSON and inspection', async () => {
    const { inspect } = await import('node:util');
    expect(JSON.stringify(scrambler)).not.toContain('coupon');
    expect(inspect(scrambler, { showHidden: true })).not.toContain('coupon');
  });
});

describe('scrambleKeyOption', () => {
  const options = defineOptions('test', { scrambleKey: scrambleKeyOption });

  it('resolves a key to its scrambler, keeps a scrambler as it is, and leaves no key as none', () => {
    const resolved = options.resolve({ scrambleKey: KEY }).scrambleKey;
    expect(resolved?.scramble(42n)).toBe(scrambler.scramble(42n));
    expect(JSON.stringify(resolved)).not.toContain(KEY);
    expect(options.resolve({ scrambleKey: scrambler }).scrambleKey).toBe(scrambler);
    expect(options.resolve({}).scrambleKey).toBeUndefined();
  });

  it('refuses a short key with INVALID_OPTIONS naming its length, never its text', () => {
    const error = caught(() => options.resolve({ scrambleKey: 'tiny-secret' }));
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain('got 11');
    expect(error.message).not.toContain('tiny-secret');
  });
});
