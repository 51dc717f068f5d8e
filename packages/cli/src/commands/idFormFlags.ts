import { formatId, ID_FORMS, IdScrambler, parseId, VestaError, type IdForm } from '@vesta/core';
import { parseIdForm, scrambleKeyOption } from '@vesta/core/kit';
import type { Command } from 'commander';
import { z } from 'zod';
import { addSchemaFlags, flagText, type Flags, type SchemaFlag } from './addSchemaFlags.js';

/** How a command reads and writes ids: a form, and the scramble when `--scrambled` is given. */
export interface IdFormValues {
  readonly form: IdForm;
  readonly scrambler: IdScrambler | undefined;
}

export const SCRAMBLE_KEY = {
  schema: scrambleKeyOption.describe('key of the scramble (at least 16 bytes)'),
  arg: 'key',
  help: 'prefer the env variable (flags show in ps)',
} satisfies SchemaFlag;

/** Adds `--format`, `--scrambled` and `--scramble-key` (the key alone scrambles nothing). */
export function addIdFormOptions(command: Command, formWhat: string): Command {
  return addSchemaFlags(command, {
    format: {
      schema: z
        .string()
        .default('decimal')
        .describe(`${formWhat}: ${ID_FORMS.join(', ')}`),
      arg: 'form',
      env: false,
    },
    scrambled: {
      help: 'the ids are scrambled with the scramble key',
      env: false,
    },
    scrambleKey: SCRAMBLE_KEY,
  });
}

/** The scrambler of the key `needed` asks for; INVALID_OPTIONS without one (a key is never echoed). */
export function scramblerOf(key: string | undefined, needed: string): IdScrambler {
  if (key === undefined) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `${needed} needs the key: --scramble-key or VESTA_SCRAMBLE_KEY`,
    );
  }
  return new IdScrambler(key);
}

/** Reads a form flag; INVALID_OPTIONS naming it. */
export function formFlag(raw: string | undefined, flag: string): IdForm {
  try {
    return parseIdForm(raw ?? 'decimal', flag);
  } catch (error) {
    throw new VestaError('INVALID_OPTIONS', (error as Error).message, { cause: error });
  }
}

/** Validates the form flags; INVALID_OPTIONS naming the flag (a key is never echoed). */
export function resolveIdFormFlags(flags: Flags): IdFormValues {
  const form = formFlag(flagText(flags.format), '--format');
  if (flags.scrambled !== true) return { form, scrambler: undefined };
  return { form, scrambler: scramblerOf(flagText(flags.scrambleKey), '--scrambled') };
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
