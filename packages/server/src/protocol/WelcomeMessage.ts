import {
  VestaError,
  type IdMetaFieldSpec,
  type IdMetaSpec,
  type IdMetaWidths,
  type IdType,
} from '@vesta/core';
import {
  ID_META_WIDTH_KEYS,
  VESTA_FIELD_ORDER,
  vestaLayoutSpec,
  vestaUnitMs,
} from '@vesta/core/kit';
import { allocFrame } from './Frame.js';
import { Op, RESPONSE_BIT, HEADER_BYTES } from './protocolConstants.js';

/** What a server answers to a hello: who it is and the layout of the ids it issues. */
export interface Welcome {
  readonly protocolVersion: number;
  readonly machine: number;
  readonly genMethod: number;
  readonly type: IdType;
  readonly version: number;
  readonly layout: IdMetaWidths;
  /** Protocol 2 carries it; for protocol 1 it is the Vesta layout of `layout` and `type`. */
  readonly layoutSpec: IdMetaSpec;
  readonly epochMs: number;
  readonly maxBatch: number;
  /** Requests the server works on at once per connection. */
  readonly maxInFlight: number;
}

const V1_BYTES = 35;
/** A field's wire code is its index here: Vesta's order, then 'reserved'. */
const FIELD_CODES: readonly IdMetaFieldSpec['name'][] = [...VESTA_FIELD_ORDER, 'reserved'];
const MAX_FIELDS = 16;
const MAX_NAME_BYTES = 64;

function protocolError(message: string): VestaError {
  return new VestaError('PROTOCOL_ERROR', message);
}

/** The handshake answer (PROTOCOL.md, "Handshake"): protocol 1's 35 bytes, then from protocol 2 the whole machine id and the layout. */
export const WelcomeMessage = {
  encode(requestId: number, w: Welcome): Buffer {
    const spec = w.layoutSpec;
    const name = Buffer.from(spec.name ?? '', 'ascii');
    const extra =
      w.protocolVersion === 1 ? 0 : 4 + 4 + 1 + 2 * spec.fields.length + 1 + name.length;
    const frame = allocFrame(requestId, Op.HELLO | RESPONSE_BIT, V1_BYTES + extra);
    let at = HEADER_BYTES;
    at = frame.writeUInt16BE(w.protocolVersion, at);
    // Protocol 2 repeats the machine id as u32 (uid-generator's workers take 22 bits).
    at = frame.writeUInt16BE(w.protocolVersion === 1 ? w.machine : Math.min(w.machine, 0xffff), at);
    at = frame.writeUInt32BE(w.genMethod, at);
    at = frame.writeUInt8(w.type, at);
    at = frame.writeUInt32BE(w.version, at);
    for (const key of ID_META_WIDTH_KEYS) at = frame.writeUInt8(w.layout[key], at);
    at = frame.writeBigUInt64BE(BigInt(w.epochMs), at);
    at = frame.writeUInt32BE(w.maxBatch, at);
    at = frame.writeUInt32BE(w.maxInFlight, at);
    if (w.protocolVersion === 1) return frame;
    at = frame.writeUInt32BE(w.machine, at);
    at = frame.writeUInt32BE(spec.unitMs, at);
    at = frame.writeUInt8(spec.fields.length, at);
    for (const f of spec.fields) {
      at = frame.writeUInt8(FIELD_CODES.indexOf(f.name), at);
      at = frame.writeUInt8(f.bits, at);
    }
    at = frame.writeUInt8(name.length, at);
    name.copy(frame, at);
    return frame;
  },

  decode(payload: Buffer): Welcome {
    const bytes = payload.length;
    if (bytes < V1_BYTES)
      throw protocolError(`welcome payload must be at least ${V1_BYTES} bytes, got ${bytes}`);
    const protocolVersion = payload.readUInt16BE(0);
    if (protocolVersion === 1 && bytes !== V1_BYTES)
      throw protocolError(`a protocol 1 welcome must be ${V1_BYTES} bytes, got ${bytes}`);
    const type = payload.readUInt8(8);
    if (type !== 0 && type !== 1) throw protocolError(`welcome names an unknown id type ${type}`);
    const epoch = payload.readBigUInt64BE(19);
    if (epoch > BigInt(Number.MAX_SAFE_INTEGER))
      throw protocolError('welcome epoch is out of range');
    const layout = Object.fromEntries(
      ID_META_WIDTH_KEYS.map((key, i) => [key, payload.readUInt8(13 + i)]),
    ) as unknown as IdMetaWidths;
    const v1 = payload.length === V1_BYTES;
    const layoutSpec = v1
      ? vestaLayoutSpec(layout, type, vestaUnitMs(type))
      : decodeLayoutSpec(payload.subarray(V1_BYTES), type);
    return {
      protocolVersion,
      machine: v1 ? payload.readUInt16BE(2) : payload.readUInt32BE(V1_BYTES),
      genMethod: payload.readUInt32BE(4),
      type,
      version: payload.readUInt32BE(9),
      layout,
      layoutSpec,
      epochMs: Number(epoch),
      maxBatch: payload.readUInt32BE(27),
      maxInFlight: payload.readUInt32BE(31),
    };
  },
} as const;

/** Protocol 2's part: u32 machine (read by the caller), u32 unit ms, the fields, the preset name. */
function decodeLayoutSpec(rest: Buffer, type: IdType): IdMetaSpec {
  const count = rest.length < 9 ? 0 : rest.readUInt8(8);
  if (count > MAX_FIELDS) throw protocolError(`welcome layout has ${count} fields`);
  const at = 9 + 2 * count;
  if (rest.length < at + 1) throw protocolError('welcome layout is truncated');
  const fields: IdMetaFieldSpec[] = [];
  for (let i = 9; i < at; i += 2) {
    const name = FIELD_CODES[rest.readUInt8(i)];
    if (name === undefined)
      throw protocolError(`welcome layout has an unknown field code ${rest.readUInt8(i)}`);
    fields.push({ name, bits: rest.readUInt8(i + 1) });
  }
  const nameLength = rest.readUInt8(at);
  if (nameLength > MAX_NAME_BYTES || rest.length !== at + 1 + nameLength) {
    throw protocolError('welcome layout name does not match its length');
  }
  const name = rest.toString('ascii', at + 1, at + 1 + nameLength);
  return { fields, unitMs: rest.readUInt32BE(4), type, ...(nameLength === 0 ? {} : { name }) };
}
