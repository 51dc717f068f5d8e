import { ID_FORMS, IdScrambler, VestaError, type IdForm } from '@vesta/core';
import { parseIdForm, scrambleKeyOption } from '@vesta/core/kit';
import type { Command } from 'commander';
import { z } from 'zod';
import { type IdFormValues } from '../idText.js';
import { addSchemaFlags, flagText, type Flags, type SchemaFlag } from './addSchemaFlags.js';

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
