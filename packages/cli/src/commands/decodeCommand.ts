import { IdCodec, parseId, VestaError, type Id } from '@vesta/core';
import { Command, Option } from 'commander';
import { reportCommandError } from './reportCommandError.js';
import { parseEpochFlag } from './serviceFlags.js';

/** The decoded form of an id, as `vesta decode` prints it (the same shape as REST's /expid). */
export interface DecodedId extends Id {
  readonly id: string;
  readonly date: string;
}

/**
 * Decodes an id of the standard layouts, offline: the type is read from the id's type bit,
 * the date from `epochMs`. INVALID_ARGUMENT for anything that is not an unsigned 64-bit
 * decimal id.
 */
export function decodeId(raw: string, epochMs: number): DecodedId {
  const id = parseId(raw);
  const codec = IdCodec.standard(epochMs);
  const fields = codec.expId(id);
  const date = codec.transTime(fields.time, fields.type);
  if (Number.isNaN(date.getTime()))
    throw new VestaError('INVALID_ARGUMENT', `id ${id} has a time past any date`);
  return { id: String(id), ...fields, date: date.toISOString() };
}

/** `vesta decode <id...>`: one JSON line per id, offline. */
export function decodeCommand(): Command {
  return new Command('decode')
    .description(
      'decode ids offline: machine, seq, time, genMethod, type, version and date (one JSON line per id)',
    )
    .argument('<ids...>', 'ids as decimal strings')
    .addOption(
      new Option(
        '--epoch <date>',
        'epoch the ids were issued with: ISO-8601 or Unix ms (default 2025-01-01)',
      ).env('VESTA_EPOCH'),
    )
    .action((ids: string[], flags: { epoch?: string }) => {
      try {
        const epochMs = parseEpochFlag(flags.epoch);
        const lines = ids.map((raw) => JSON.stringify(decodeId(raw, epochMs)));
        process.stdout.write(`${lines.join('\n')}\n`);
      } catch (error) {
        reportCommandError('decode', error);
      }
    });
}
