import { decodeUuid, VestaError, type IdConverter } from '@vesta/core';
import { isUuidText } from '../commands/isUuidText.js';
import { readId, type IdFormValues } from '../commands/idFormFlags.js';
import type { AuditedId } from './AuditedId.js';

/** The last instant a `Date` holds (8.64e15 ms): a time field past it names no date. */
const MAX_DATE_MS = 8.64e15;

/**
 * Reads the values of an audited column as `vesta decode` reads its arguments: a UUID in any of
 * its forms (canonical, hex, base32) whatever the form flags say, otherwise an id in `how.form`
 * (decimal by default, Java's signed decimals included; unscrambled with `--scrambled`), taken
 * apart by `codec` (its layout and epoch). INVALID_ARGUMENT, with the reason, for a line that
 * is neither.
 */
export class AuditedIdReader {
  constructor(
    private readonly codec: IdConverter,
    private readonly how: IdFormValues,
  ) {}

  /** The id or UUID `text` holds; INVALID_ARGUMENT when it holds neither. */
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
