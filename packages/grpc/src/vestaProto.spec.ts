import fc from 'fast-check';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { encodeGenIdResponse, encodeIdBatch } from './vestaProto.js';

const root = protobuf.Root.fromJSON({
  nested: {
    GenIdResponse: { fields: { id: { type: 'fixed64', id: 1 } } },
    IdBatch: { fields: { ids: { rule: 'repeated', type: 'fixed64', id: 1 } } },
  },
});
const GenIdResponse = root.lookupType('GenIdResponse');
const IdBatch = root.lookupType('IdBatch');
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const asText = { longs: String, arrays: true };

describe('the hand-encoded id messages', () => {
  it('GenIdResponse decodes as protobufjs reads it', () => {
    fc.assert(
      fc.property(u64, (id) => {
        const message = GenIdResponse.decode(encodeGenIdResponse({ id }));
        expect(GenIdResponse.toObject(message, asText)).toEqual({ id: String(id) });
      }),
    );
  });

  it('IdBatch decodes as protobufjs reads it, and is the bytes protobufjs writes', () => {
    fc.assert(
      fc.property(fc.array(u64, { maxLength: 3000 }), (ids) => {
        const bytes = encodeIdBatch({ ids });
        expect(IdBatch.toObject(IdBatch.decode(bytes), asText)).toEqual({ ids: ids.map(String) });
        const written = IdBatch.encode(IdBatch.fromObject({ ids: ids.map(String) })).finish();
        expect(Buffer.from(bytes).equals(Buffer.from(written))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
