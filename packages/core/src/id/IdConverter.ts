import { inject, injectable } from 'inversify';
import { VestaError } from '../errors/VestaError.js';
import type { IdField, IdMeta } from '../layout/IdMeta.js';
import type { IdType } from '../layout/IdType.js';
import { TOKENS } from '../tokens.js';
import type { Id } from './Id.js';
import { parseId } from './parseId.js';

/**
 * The layouts a converter knows, by type. The layout of the service's own type is always
 * there; the other type's too when its type bit sits at the same position.
 */
export type IdLayouts = ReadonlyMap<IdType, IdMeta>;

const FIELDS = ['machine', 'seq', 'time', 'genMethod', 'type', 'version'] as const;

function checkField(name: string, value: unknown, field: IdField): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > field.max) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `${name} must be a whole number from 0 to ${field.max}, got ${String(value)}`,
      {
        details: {
          field: name,
          value: typeof value === 'number' ? value : String(value),
          max: field.max,
        },
      },
    );
  }
  return value;
}

/**
 * Encodes {@link Id} fields into a 64-bit id and back. Every field is range-checked on the
 * way in: an oversized field is an INVALID_ARGUMENT, never spilled into its neighbour.
 */
@injectable()
export class IdConverter {
  readonly #layouts: IdLayouts;
  readonly #typeBit: IdField;

  constructor(@inject(TOKENS.IdLayouts) layouts: IdLayouts) {
    const metas = [...layouts.values()];
    const first = metas[0];
    if (first === undefined) throw new VestaError('INVALID_LAYOUT', 'no layout given');
    for (const meta of metas) {
      if (meta.type.start !== first.type.start || meta.type.bits !== first.type.bits) {
        throw new VestaError(
          'INVALID_LAYOUT',
          'all layouts of one converter must keep the type bit in one place',
        );
      }
    }
    this.#layouts = layouts;
    this.#typeBit = first.type;
  }

  /** The layout of a type; INVALID_ARGUMENT when this converter has none for it. */
  meta(type: IdType): IdMeta {
    const meta = this.#layouts.get(type);
    if (meta === undefined) {
      throw new VestaError('INVALID_ARGUMENT', `no layout is configured for ids of type ${type}`);
    }
    return meta;
  }

  /** Encodes fields into an id. Throws INVALID_ARGUMENT naming the first field out of range. */
  convert(id: Id): bigint {
    const meta = this.meta(id.type);
    let out = 0n;
    for (const name of FIELDS) {
      const field = meta[name];
      // A layout without a type bit still has a type: finding its layout above checked it.
      if (name === 'type' && field.bits === 0) continue;
      const value = checkField(name, id[name], field);
      if (field.bits === 0) continue;
      out |= BigInt(value) << field.startBig;
    }
    return out;
  }

  /** Decodes an id (bigint or decimal string); the type is read from the id itself. */
  parse(value: bigint | string): Id {
    const id = parseId(value);
    const type = this.typeOf(id);
    const meta = this.meta(type);
    if (meta.totalBits < 64 && id >> BigInt(meta.totalBits) !== 0n) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `id ${id} has bits set above the ${meta.totalBits}-bit layout`,
      );
    }
    const read = (field: IdField): number => Number((id >> field.startBig) & field.maxBig);
    return {
      machine: read(meta.machine),
      seq: read(meta.seq),
      time: read(meta.time),
      genMethod: read(meta.genMethod),
      type,
      version: read(meta.version),
    };
  }

  /** The type an id says it is (the only layout's type for layouts without a type bit). */
  typeOf(id: bigint): IdType {
    if (this.#typeBit.bits === 0) {
      return this.#layouts.keys().next().value as IdType;
    }
    return Number((id >> this.#typeBit.startBig) & 1n) as IdType;
  }
}
