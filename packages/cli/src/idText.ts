import { formatId, parseId, type IdForm, type IdScrambler } from '@vesta/core';

/** How a command reads and writes ids: a form, and the scramble when `--scrambled` is given. */
export interface IdFormValues {
  readonly form: IdForm;
  readonly scrambler: IdScrambler | undefined;
}

export function writeId(id: bigint, how: IdFormValues): string {
  return how.scrambler === undefined ? formatId(id, how.form) : how.scrambler.format(id, how.form);
}

/** Reads an id written as the flags say (INVALID_ARGUMENT when it is not). */
export function readId(text: string, how: IdFormValues): bigint {
  return how.scrambler === undefined
    ? parseId(text, how.form)
    : how.scrambler.parse(text, how.form);
}

const UUID_TEXT =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}|[0-7][0-9a-hjkmnp-tv-z]{25})$/i;

/** Whether `raw` is a UUID in any form (canonical, hex, base32), none of which is an id's. */
export function isUuidText(raw: string): boolean {
  return UUID_TEXT.test(raw);
}
