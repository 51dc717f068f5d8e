import { formatUuid, IdType, VestaError, type UuidForm } from '@vesta/core';
import { makeUuid, parseIdType, parseInstant } from '@vesta/core/kit';
import { Command } from 'commander';
import type { Flags } from './addSchemaFlags.js';
import { writeId } from '../idText.js';
import { addIdFormOptions, resolveIdFormFlags } from './idFormFlags.js';
import { reportCommandError } from './reportCommandError.js';
import { addLayoutFlags, converterOf } from './layoutFlags.js';
import { wholeFlag } from './wholeFlag.js';

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

function required(flag: string, raw: string | undefined): number {
  const value = wholeFlag(flag, raw, undefined, 'INVALID_ARGUMENT');
  if (value === undefined) throw new VestaError('INVALID_ARGUMENT', `${flag} is required`);
  return value;
}

/** `vesta make --uuid`; `given` flags `--layout`, `--epoch`, `--scrambled` are refused. */
export function makeUuidOf(
  flags: MakeFlags & { format?: string; scrambled?: boolean },
  given: ReadonlySet<string> = new Set(),
): string {
  const refused = ['layout', 'epoch', 'scrambled'].filter((flag) => given.has(flag));
  if (refused.length > 0) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `--uuid takes no ${refused.map((flag) => `--${flag}`).join(' or ')}: a UUID's time is Unix ms`,
    );
  }
  if ((flags.time === undefined) === (flags.date === undefined)) {
    throw new VestaError('INVALID_ARGUMENT', 'give exactly one of --time and --date');
  }
  const uuid = makeUuid({
    unixMs:
      flags.date === undefined
        ? required('--time', flags.time)
        : parseInstant(flags.date, '--date'),
    counter: required('--seq', flags.seq),
    machine: required('--machine', flags.machine),
    genMethod: wholeFlag('--gen-method', flags.genMethod, undefined, 'INVALID_ARGUMENT') ?? 0,
    type: flags.type === undefined ? IdType.MAX_PEAK : parseIdType(flags.type, '--type'),
    idVersion: wholeFlag('--version', flags.version, undefined, 'INVALID_ARGUMENT') ?? 0,
  });
  const form =
    flags.format === undefined || flags.format === 'decimal' ? 'canonical' : flags.format;
  return formatUuid(uuid, form as UuidForm);
}

/** Encodes an id offline, every field range-checked (INVALID_ARGUMENT, never spilled). */
export function makeId(flags: MakeFlags): bigint {
  const typeFlag = flags.type === undefined ? undefined : parseIdType(flags.type, '--type');
  if ((flags.time === undefined) === (flags.date === undefined)) {
    throw new VestaError('INVALID_ARGUMENT', 'give exactly one of --time and --date');
  }
  const codec = converterOf(flags.layout, flags.epoch, typeFlag);
  const type = codec.layout.idType;
  let time: number;
  if (flags.date !== undefined) {
    const epochMs = codec.epochMs;
    const ms = parseInstant(flags.date, '--date');
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
    genMethod: wholeFlag('--gen-method', flags.genMethod, undefined, 'INVALID_ARGUMENT') ?? 0,
    type,
    version: wholeFlag('--version', flags.version, undefined, 'INVALID_ARGUMENT') ?? 0,
  });
}

/** `vesta make`: prints the id of the given fields, offline. */
export function makeCommand(): Command {
  const command = new Command('make')
    .option(
      '--time <units>',
      'time units since the epoch (seconds for max-peak, ms for min-granularity)',
    )
    .option(
      '--date <iso>',
      'the time instead of --time: an ISO-8601 date-time with Z or an offset, or Unix ms',
    )
    .requiredOption('--seq <n>', 'sequence within the time unit')
    .requiredOption('--machine <id>', 'machine id (0-1023; the width of the layout machine field)')
    .option('--gen-method <n>', 'generation method: 0 embedded, 1 central server, 2 REST', '0')
    .option('--version <n>', 'version bit', '0')
    .option(
      '--uuid',
      'make a Vesta UUIDv7 instead: --time is Unix ms (or --date), --seq its counter; printed canonical, or --format hex or base32',
    );
  addLayoutFlags(command, true);
  return addIdFormOptions(command, 'form to print the id in').action(
    (flags: MakeFlags & Flags & { uuid?: boolean }, self: Command) => {
      try {
        if (flags.uuid === true) {
          const given = new Set(
            Object.keys(flags).filter((key) => self.getOptionValueSource(key) === 'cli'),
          );
          process.stdout.write(`${makeUuidOf(flags, given)}\n`);
          return;
        }
        const how = resolveIdFormFlags(flags);
        process.stdout.write(`${writeId(makeId(flags), how)}\n`);
      } catch (error) {
        reportCommandError('make', error);
      }
    },
  );
}
