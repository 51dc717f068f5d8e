/**
 * The two messages the hot paths answer, encoded by hand: `GenIdResponse { fixed64 id = 1 }` and
 * `IdBatch { repeated fixed64 ids = 1 }` (packed, proto3's default), from bigints straight to
 * their little-endian bytes. protobufjs would take each id as a decimal string and parse it
 * again (more than half the cost of a stream). The bytes are the ones protoc's encoders write.
 */

/** Field 1, wire type 1 (64-bit). */
const FIXED64_FIELD_1 = 0x09;
/** Field 1, wire type 2 (length-delimited): a packed repeated field. */
const PACKED_FIELD_1 = 0x0a;

/** `GenIdResponse` of one id. */
export function encodeGenIdResponse({ id }: { readonly id: bigint }): Buffer {
  const bytes = Buffer.allocUnsafe(9);
  bytes[0] = FIXED64_FIELD_1;
  bytes.writeBigUInt64LE(id, 1);
  return bytes;
}

/** `IdBatch` of `ids` (an empty batch is the empty message). */
export function encodeIdBatch({ ids }: { readonly ids: readonly bigint[] }): Buffer {
  if (ids.length === 0) return Buffer.alloc(0);
  let length = 8 * ids.length;
  let varintBytes = 1;
  while (length >= 2 ** (7 * varintBytes)) varintBytes++;
  const bytes = Buffer.allocUnsafe(1 + varintBytes + length);
  bytes[0] = PACKED_FIELD_1;
  let at = 1;
  while (length >= 0x80) {
    bytes[at++] = (length & 0x7f) | 0x80;
    length = Math.floor(length / 128);
  }
  bytes[at++] = length;
  for (const id of ids) at = bytes.writeBigUInt64LE(id, at);
  return bytes;
}
