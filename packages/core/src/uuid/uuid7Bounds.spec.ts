import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdConverter } from '../codec/IdConverter.js';
import { decodeUuid, makeUuid } from './uuid7Bits.js';
import { uuid7FieldsArbitrary } from '../testing/uuid7FieldsArbitrary.js';
import { parseUuid } from './uuidForms.js';

const MAX_MS = 2 ** 48 - 1;
const codec = IdConverter.standard(Date.UTC(2025, 0, 1));

const windows = fc
  .tuple(fc.integer({ min: 0, max: MAX_MS }), fc.integer({ min: 0, max: 5 }))
  .chain(([from, size]) =>
    fc.tuple(
      fc.constant(from),
      fc.oneof(
        fc.integer({ min: from, max: Math.min(MAX_MS, from + size) }),
        fc.integer({ min: from, max: MAX_MS }),
      ),
    ),
  );

/** A Vesta UUIDv7 of any fields, its ms near either end of the window. */
function uuidNear([fromMs, toMs]: [number, number]): fc.Arbitrary<string> {
  const near = (ms: number): fc.Arbitrary<number> =>
    fc.integer({ min: -2, max: 2 }).map((d) => Math.min(MAX_MS, Math.max(0, ms + d)));
  return uuid7FieldsArbitrary(
    fc.oneof(near(fromMs), near(toMs), fc.integer({ min: 0, max: MAX_MS })),
  ).map(({ random, ...fields }) => makeUuid(fields, random));
}

describe('the UUIDv7 bounds of a window', () => {
  it('hold every UUIDv7 of the window between them, as text and as numbers, and no other', () => {
    fc.assert(
      fc.property(
        windows.chain((window) =>
          fc.tuple(fc.constant(window), fc.array(uuidNear(window), { minLength: 1 })),
        ),
        ([[fromMs, toMs], uuids]) => {
          const { min, max } = codec.timeBounds(fromMs, toMs).uuids;
          for (const uuid of uuids) {
            const ms = decodeUuid(uuid).unixMs as number;
            const inWindow = fromMs <= ms && ms <= toMs;
            expect(min <= uuid && uuid <= max).toBe(inWindow);
            const n = parseUuid(uuid);
            expect(parseUuid(min) <= n && n <= parseUuid(max)).toBe(inWindow);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('are themselves RFC 9562 version 7 UUIDs of the first and last ms, in canonical text', () => {
    fc.assert(
      fc.property(windows, ([fromMs, toMs]) => {
        const { min, max } = codec.timeBounds(fromMs, toMs).uuids;
        expect(decodeUuid(min)).toMatchObject({
          uuid: min,
          version: 7,
          rfc9562: true,
          unixMs: fromMs,
        });
        expect(decodeUuid(max)).toMatchObject({
          uuid: max,
          version: 7,
          rfc9562: true,
          unixMs: toMs,
        });
      }),
    );
  });

  it('set every bit but the time, version and variant to 0 in min and to 1 in max', () => {
    const ms = Date.UTC(2026, 10, 27);
    const prefix = ms.toString(16).padStart(12, '0');
    const time = `${prefix.slice(0, 8)}-${prefix.slice(8)}`;
    expect(codec.timeBounds(ms, ms).uuids).toEqual({
      min: `${time}-7000-8000-000000000000`,
      max: `${time}-7fff-bfff-ffffffffffff`,
    });
    expect(codec.timeBounds(0, MAX_MS).uuids).toEqual({
      min: '00000000-0000-7000-8000-000000000000',
      max: 'ffffffff-ffff-7fff-bfff-ffffffffffff',
    });
  });
});
