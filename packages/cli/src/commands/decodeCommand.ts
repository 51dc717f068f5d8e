import { IdCodec, VestaError, type Id } from '@vesta/core';
import { Command, Option } from 'commander';
import {
  addIdFormOptions,
  readId,
  resolveIdFormFlags,
  type IdFormFlags,
  type IdFormValues,
} from './idFormFlags.js';
import { reportCommandError } from './reportCommandError.js';
import { parseEpochFlag } from './serviceFlags.js';

/** The decoded form of an id, as `vesta decode` prints it (the same shape as REST's /expid). */
export interface DecodedId extends Id {
  readonly id: string;
  readonly date: string;
}

/**
 * Decodes an id of the standard layouts, offline: the type is read from the id's type bit,
 * the date from `epochMs`. The id is read in `how.form` (decimal by default, Java's negative
 * longs included), unscrambled first when `how.scrambler` is given; `id` in the result is the
 * decimal id. INVALID_ARGUMENT for anything that is not an id in that form.
 */
export function decodeId(
  raw: string,
  epochMs: number,
  how: IdFormValues = { form: 'decimal', scrambler: undefined },
): DecodedId {
  const id = readId(raw, how);
  const codec = IdCodec.standard(epochMs);
  const fields = codec.expId(id);
  const date = codec.transTime(fields.time, fields.type);
  if (Number.isNaN(date.getTime()))
    throw new VestaError('INVALID_ARGUMENT', `id ${id} has a time past any date`);
  return { id: String(id), ...fields, date: date.toISOString() };
}

/** `vesta decode <id...>`: one JSON line per id, offline. */
export function decodeCommand(): Command {
  const command = new Command('decode')
    .description(
      'decode ids offline: machine, seq, time, genMethod, type, version and date (one JSON line per id)',
    )
    .argument('<ids...>', 'ids, as decimal strings unless --format says otherwise')
    .addOption(
      new Option(
        '--epoch <date>',
        'epoch the ids were issued with: ISO-8601 or Unix ms (default 2025-01-01)',
      ).env('VESTA_EPOCH'),
    );
  return addIdFormOptions(command, 'form of the ids').action(
    (ids: string[], flags: { epoch?: string } & IdFormFlags) => {
      try {
        const epochMs = parseEpochFlag(flags.epoch);
        const how = resolveIdFormFlags(flags);
        const lines = ids.map((raw) => JSON.stringify(decodeId(raw, epochMs, how)));
        process.stdout.write(`${lines.join('\n')}\n`);
      } catch (error) {
        reportCommandError('decode', error);
      }
    },
  );
}
