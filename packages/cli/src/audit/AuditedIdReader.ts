import { uuidText } from '@vesta/core/kit';
import { decodeUuid, VestaError, type IdConverter } from '@vesta/core';
import { isUuidText, readId, type IdFormValues } from '../idText.js';

/** One value of the audited column, read from its text: a 64-bit id or a 128-bit UUID. */
export interface AuditedId {
  readonly kind: 'id' | 'uuid';
  readonly value: bigint;
  /** Undefined for a UUID other than v7. */
  readonly unixMs: number | undefined;
  /** Undefined for a UUID other than Vesta's v7 (as is `genMethod`). */
  readonly machine: number | undefined;
  readonly genMethod: number | undefined;
  /** The time unit of `unixMs`. @default 1 */
  readonly unitMs?: number;
}

/** A value as the report writes it: an id as its decimal string, a UUID canonical. */
export function auditedIdText(kind: AuditedId['kind'], value: bigint): string {
  return kind === 'id' ? value.toString() : uuidText(value);
}

/** The last instant a `Date` holds (8.64e15 ms): a time field past it names no date. */
const MAX_DATE_MS = 8.64e15;

/** Reads a column's values as `vesta decode` does (a UUID in any form, else an id); INVALID_ARGUMENT. */
export class AuditedIdReader {
  constructor(
    private readonly codec: IdConverter,
    private readonly how: IdFormValues,
  ) {}

  read(text: string): AuditedId {
    if (isUuidText(text)) return this.#uuid(text);
    const value = readId(text, this.how);
    const fields = this.codec.expId(value);
    const { unitMs } = this.codec.layoutOf(fields.type);
    const unixMs = this.codec.epochMs + fields.time * unitMs;
    if (unixMs > MAX_DATE_MS) {
      throw new VestaError('INVALID_ARGUMENT', `id ${value} has a time past any date`);
    }
    const { machine, genMethod } = fields;
    return { kind: 'id', value, unixMs, machine, genMethod, unitMs };
  }

  #uuid(text: string): AuditedId {
    const fields = decodeUuid(text);
    return {
      kind: 'uuid',
      value: BigInt(`0x${fields.uuid.replaceAll('-', '')}`),
      unixMs: fields.unixMs,
      machine: fields.machine,
      genMethod: fields.genMethod,
    };
  }
}
