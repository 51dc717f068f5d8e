import { IdConverter, IdType, parseEpoch, VestaError } from '@vesta/core';
import { parseIdType } from '@vesta/core/kit';
import { Command, Option } from 'commander';
import { addIdFormOptions, resolveIdFormFlags, writeId, type IdFormFlags } from './idFormFlags.js';
import { reportCommandError } from './reportCommandError.js';
import { layoutAndEpoch } from './decodeCommand.js';

/** The flags of `vesta make`, as commander hands them over. */
export interface MakeFlags {
  time?: string;
  date?: string;
  seq?: string;
  machine?: string;
  genMethod?: string;
  type?: string;
  version?: string;
  epoch?: string;
  layout?: string;
}

function whole(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(raw)) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `${flag} must be a whole decimal number, got ${JSON.stringify(raw)}`,
    );
  }
  return Number(raw);
}

function required(flag: string, raw: string | undefined): number {
  const value = whole(flag, raw);
  if (value === undefined) throw new VestaError('INVALID_ARGUMENT', `${flag} is required`);
  return value;
}

/**
 * Encodes an id of the standard layouts, offline. Every field is range-checked (an oversized
 * field is INVALID_ARGUMENT, never spilled into its neighbour). The time is `--time` units
 * since the epoch, or `--date` turned into units (it must fall on a unit's start for max-peak).
 */
export function makeId(flags: MakeFlags): bigint {
  const typeFlag = flags.type === undefined ? undefined : parseIdType(flags.type, '--type');
  if ((flags.time === undefined) === (flags.date === undefined)) {
    throw new VestaError('INVALID_ARGUMENT', 'give exactly one of --time and --date');
  }
  const { layout, epochMs: epoch } = layoutAndEpoch(flags.layout, flags.epoch, typeFlag);
  const codec =
    layout === undefined
      ? IdConverter.standard(epoch, typeFlag ?? IdType.MAX_PEAK)
      : new IdConverter(layout, epoch);
  const type = codec.layout.idType;
  let time: number;
  if (flags.date !== undefined) {
    const epochMs = codec.epochMs;
    let ms: number;
    try {
      // The formats --epoch takes, so `make` reads a date the way the servers read an epoch.
      ms = parseEpoch(flags.date, '--date');
    } catch (error) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        error instanceof Error ? error.message : String(error),
        { cause: error },
      );
    }
    const unit = codec.layout.unitMs;
    if (ms < epochMs || (ms - epochMs) % unit !== 0) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `--date must be at or after the epoch, on a whole ${unit === 1000 ? 'second' : unit === 1 ? 'millisecond' : `${unit} ms unit`}`,
      );
    }
    time = (ms - epochMs) / unit;
  } else {
    time = required('--time', flags.time);
  }
  return codec.encode({
    time,
    seq: required('--seq', flags.seq),
    machine: required('--machine', flags.machine),
    genMethod: whole('--gen-method', flags.genMethod) ?? 0,
    type,
    version: whole('--version', flags.version) ?? 0,
  });
}

/** `vesta make`: prints the id of the given fields, offline. */
export function makeCommand(): Command {
  const command = new Command('make')
    .addOption(
      new Option(
        '--time <units>',
        'time units since the epoch (seconds for max-peak, ms for min-granularity)',
      ),
    )
    .addOption(
      new Option(
        '--date <iso>',
        'the time instead of --time: an ISO-8601 date-time with Z or an offset, or Unix ms',
      ),
    )
    .requiredOption('--seq <n>', 'sequence within the time unit')
    .requiredOption('--machine <id>', 'machine id (0-1023; the width of the layout machine field)')
    .option('--gen-method <n>', 'generation method: 0 embedded, 1 central server, 2 REST', '0')
    .option(
      '--type <type>',
      "'max-peak' (0) or 'min-granularity' (1) (default: max-peak, or the --layout preset's)",
    )
    .addOption(
      new Option(
        '--layout <layout>',
        'layout of the id: a preset (leaf, twitter, sonyflake, ...), uid-generator:T,W,S or a JSON spec (default: the --type Vesta layout)',
      ).env('VESTA_LAYOUT'),
    )
    .option('--version <n>', 'version bit', '0')
    .addOption(
      new Option(
        '--epoch <date>',
        "epoch, for --date: ISO-8601 or Unix ms (default 2025-01-01, or the --layout preset's)",
      ).env('VESTA_EPOCH'),
    );
  return addIdFormOptions(command, 'form to print the id in').action(
    (flags: MakeFlags & IdFormFlags) => {
      try {
        const how = resolveIdFormFlags(flags);
        process.stdout.write(`${writeId(makeId(flags), how)}\n`);
      } catch (error) {
        reportCommandError('make', error);
      }
    },
  );
}
