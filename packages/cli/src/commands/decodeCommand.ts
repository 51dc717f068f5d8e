import {
  IdConverter,
  IdType,
  MAX_PEAK_META,
  MIN_GRANULARITY_META,
  parseId,
  timeUnitMs,
  VestaError,
} from '@vesta/core';
import { Command, Option } from 'commander';
import { reportCommandError } from './reportCommandError.js';
import { parseEpochFlag } from './serviceFlags.js';

/** The decoded form of an id, as `vesta decode` prints it (the same shape as REST's /expid). */
export interface DecodedId {
  readonly id: string;
  readonly machine: number;
  readonly seq: number;
  readonly time: number;
  readonly genMethod: number;
  readonly type: IdType;
  readonly version: number;
  readonly date: string;
}

const STANDARD = new IdConverter(
  new Map([
    [IdType.MAX_PEAK, MAX_PEAK_META],
    [IdType.MIN_GRANULARITY, MIN_GRANULARITY_META],
  ]),
);

/**
 * Decodes an id of the standard layouts, offline: the type is read from the id's type bit,
 * the date from `epochMs`. INVALID_ARGUMENT for anything that is not an unsigned 64-bit
 * decimal id.
 */
export function decodeId(raw: string, epochMs: number): DecodedId {
  const id = parseId(raw);
  const fields = STANDARD.parse(id);
  const date = new Date(epochMs + fields.time * timeUnitMs(fields.type));
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
