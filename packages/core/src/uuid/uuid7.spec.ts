import { randomUUID } from 'node:crypto';
import { codeOf } from '@vesta/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { composeUuid7, decodeUuid, uuid7Flags } from './uuid7Bits.js';
import { formatUuid, uuidBytes, UUID_FORMS } from './uuidForms.js';
import { uuid7FieldsArbitrary } from '../testing/uuid7FieldsArbitrary.js';

const fields = uuid7FieldsArbitrary();

type Fields = typeof fields extends fc.Arbitrary<infer T> ? T : never;

const compose = (f: Fields): string =>
  composeUuid7(
    f.unixMs,
    f.counter,
    f.machine,
    uuid7Flags(f.genMethod, f.type, f.idVersion),
    f.random,
  );

/** A version 7 UUID of another issuer: random bytes from a seeded generator, RFC bits set. */
function foreignV7(seed: number): string {
  let state = seed >>> 0 || 1;
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  return formatUuid(bytes);
}

describe('a Vesta UUIDv7', () => {
  it('is RFC 9562 version 7, variant 10, and decodes to the fields it was made of', () => {
    fc.assert(
      fc.property(fields, (f) => {
        const uuid = compose(f);
        expect(uuid).toMatch(
          /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
        expect(decodeUuid(uuid)).toEqual({
          uuid,
          version: 7,
          rfc9562: true,
          unixMs: f.unixMs,
          date: new Date(f.unixMs).toISOString(),
          vesta: true,
          counter: f.counter,
          machine: f.machine,
          genMethod: f.genMethod,
          type: f.type,
          idVersion: f.idVersion,
        });
      }),
    );
  });

  it('sorts as text in the order of its time, then its counter', () => {
    fc.assert(
      fc.property(fields, fields, (a, b) => {
        const order = a.unixMs - b.unixMs || a.counter - b.counter;
        fc.pre(order !== 0);
        expect(compose(a) < compose(b)).toBe(order < 0);
      }),
    );
  });

  it('keeps its fields where they are: one UUID, bit for bit', () => {
    // 2026-11-27T00:00:00.000Z = 0x01a21a4d4000 | version 7 | counter 0x2abcd: 0x0aa, then
    // variant 0b10 and 0x3cd | machine 1023 | genMethod 2, type 1, id version 0 | check | random
    // 0x55555, the check 0x4c1 between them.
    expect(composeUuid7(Date.UTC(2026, 10, 27), 0x2abcd, 1023, uuid7Flags(2, 1, 0), 0x55555)).toBe(
      '01a21a4d-4000-70aa-bcd0-3ffa4c155555',
    );
  });

  it('round-trips through every text form and its 16 bytes, keeping its order', () => {
    fc.assert(
      fc.property(fields, fields, (a, b) => {
        const [x, y] = [compose(a), compose(b)];
        for (const form of UUID_FORMS) {
          const [fx, fy] = [formatUuid(x, form), formatUuid(y, form)];
          expect(formatUuid(fx)).toBe(x);
          if (x !== y) expect(fx < fy).toBe(x < y);
        }
        expect(formatUuid(uuidBytes(x))).toBe(x);
        expect(formatUuid(x.toUpperCase())).toBe(x);
      }),
    );
  });
});

describe('decodeUuid of a UUID of another issuer', () => {
  it('gives a v7 its time only, and passes one for ours about 1 time in 4,096', () => {
    let ours = 0;
    for (let seed = 1; seed <= 20_000; seed++) {
      const fields = decodeUuid(foreignV7(seed));
      expect(fields.version).toBe(7);
      expect(fields.unixMs).toBeTypeOf('number');
      if (fields.vesta) ours++;
      else expect(fields).not.toHaveProperty('machine');
    }
    // 20,000 / 4,096 = 4.9 expected; the seeds are fixed, so this is one exact count.
    expect(ours).toBeLessThan(15);
  });

  it('gives a random (version 4) UUID its version and nothing else', () => {
    const uuid = randomUUID();
    expect(decodeUuid(uuid)).toEqual({ uuid, version: 4, rfc9562: true, vesta: false });
  });

  it.each([['not-a-uuid'], ['0192f0c4-3b6e-7000-8000-00000000000'], [''], [42]])(
    'refuses %j with INVALID_ARGUMENT',
    (value) => {
      expect(codeOf(() => decodeUuid(value as string))).toBe('INVALID_ARGUMENT');
    },
  );

  it('refuses bytes that are not 16 with INVALID_ARGUMENT', () => {
    expect(codeOf(() => decodeUuid(new Uint8Array(15)))).toBe('INVALID_ARGUMENT');
  });
});
