import { createIdMeta, type IdMeta } from '../layout/IdMeta.js';

/** For tests: Twitter's shape as layout data (sequence 12 | worker 10 | ms 41 | sign bit), a field order other than Vesta's. */
export function twitterShapedLayout(): IdMeta {
  return createIdMeta({
    fields: [
      { name: 'seq', bits: 12 },
      { name: 'machine', bits: 10 },
      { name: 'time', bits: 41 },
      { name: 'reserved', bits: 1 },
    ],
    unitMs: 1,
    type: 1,
  });
}
