import fc from 'fast-check';
import { UUID7 } from '../uuid/uuid7Bits.js';

/** For property tests: the fields of a Vesta UUIDv7 and its random bits, each over its whole range. */
export function uuid7FieldsArbitrary(
  unixMs: fc.Arbitrary<number> = fc.integer({ min: 0, max: 2 ** 48 - 1 }),
) {
  return fc.record({
    unixMs,
    counter: fc.integer({ min: 0, max: 2 ** UUID7.counterBits - 1 }),
    machine: fc.integer({ min: 0, max: 2 ** UUID7.machineBits - 1 }),
    genMethod: fc.integer({ min: 0, max: 3 }),
    type: fc.integer({ min: 0, max: 1 }),
    idVersion: fc.integer({ min: 0, max: 1 }),
    random: fc.integer({ min: 0, max: 2 ** UUID7.randomBits - 1 }),
  });
}
