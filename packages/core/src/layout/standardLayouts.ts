import { createIdMeta, type IdMeta } from './IdMeta.js';
import { IdType } from './IdType.js';

/** Type 0, max-peak: 10 machine, 20 sequence, 30 time (seconds), 2 genMethod, 1 type, 1 version. */
export const MAX_PEAK_META: IdMeta = createIdMeta({
  machineBits: 10,
  seqBits: 20,
  timeBits: 30,
  genMethodBits: 2,
  typeBits: 1,
  versionBits: 1,
});

/** Type 1, min-granularity: 10 machine, 10 sequence, 40 time (milliseconds), 2, 1, 1. */
export const MIN_GRANULARITY_META: IdMeta = createIdMeta({
  machineBits: 10,
  seqBits: 10,
  timeBits: 40,
  genMethodBits: 2,
  typeBits: 1,
  versionBits: 1,
});

/** The standard layout of a type. */
export function standardMeta(type: IdType): IdMeta {
  return type === IdType.MAX_PEAK ? MAX_PEAK_META : MIN_GRANULARITY_META;
}
