import { formatId, VestaError, type IdRange } from '@vesta/core';
import { parseIdType, parseInstant } from '@vesta/core/kit';
import { Command } from 'commander';
import { addLayoutFlags, converterOf } from './layoutFlags.js';
import { reportCommandError } from './reportCommandError.js';
import { wholeFlag } from './wholeFlag.js';

export interface BoundsFlags {
  from?: string;
  to?: string;
  date?: string;
  genMethod?: string;
  version?: string;
  type?: string;
  layout?: string;
  epoch?: string;
  column?: string;
  signed?: boolean;
}

const DAY_MS = 86_400_000;
const TOP_BIT = 1n << 63n;
const COLUMN = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?$/;

const invalid = (message: string) => new VestaError('INVALID_ARGUMENT', message);

/** The window of `--from` and `--to`, or `--date` (a UTC day), in Unix ms, both inclusive. */
export function windowOf(flags: BoundsFlags): [fromMs: number, toMs: number] {
  if (flags.date !== undefined) {
    if (flags.from !== undefined || flags.to !== undefined) {
      throw invalid('give --date alone, or --from and --to');
    }
    if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(flags.date)) {
      throw invalid(`--date must be a day, YYYY-MM-DD (UTC), got ${JSON.stringify(flags.date)}`);
    }
    const day = parseInstant(flags.date, '--date');
    return [day, day + DAY_MS - 1];
  }
  if (flags.from === undefined || flags.to === undefined) {
    throw invalid('give --from and --to (ISO-8601 or Unix ms, both inclusive), or --date');
  }
  const window: [number, number] = [
    parseInstant(flags.from, '--from'),
    parseInstant(flags.to, '--to'),
  ];
  if (window[0] > window[1]) throw invalid(`--from ${flags.from} is after --to ${flags.to}`);
  return window;
}

/** The ranges as decimal strings; `signed` splits one across 2^63, whose top half is negative. */
function printRanges(ranges: readonly IdRange[], signed: boolean) {
  const halves = signed
    ? ranges.flatMap((r) =>
        r.min < TOP_BIT && r.max >= TOP_BIT
          ? [
              { ...r, max: TOP_BIT - 1n },
              { ...r, min: TOP_BIT },
            ]
          : [r],
      )
    : ranges;
  const form = signed ? 'signed' : 'decimal';
  return halves.map((r) => ({ ...r, min: formatId(r.min, form), max: formatId(r.max, form) }));
}

/** `column BETWEEN min AND max` for each range, OR-ed; `1 = 0` (no row) for none. */
export function sqlOf(column: string, ranges: readonly { min: string; max: string }[]): string {
  const terms = ranges.map((r) => `${column} BETWEEN ${r.min} AND ${r.max}`);
  if (terms.length === 0) return '1 = 0';
  return terms.length === 1 ? terms.join('') : `(${terms.join(' OR ')})`;
}

/** What `vesta bounds` prints: the id ranges and UUIDv7 bounds of the window; INVALID_ARGUMENT. */
export function boundsOf(flags: BoundsFlags) {
  const [fromMs, toMs] = windowOf(flags);
  const type = flags.type === undefined ? undefined : parseIdType(flags.type, '--type');
  const column = flags.column ?? 'id';
  if (!COLUMN.test(column)) {
    throw invalid(
      `--column must be a column name (or table.column), got ${JSON.stringify(column)}`,
    );
  }
  const genMethod = wholeFlag('--gen-method', flags.genMethod, undefined, 'INVALID_ARGUMENT');
  const version = wholeFlag('--version', flags.version, undefined, 'INVALID_ARGUMENT');
  const bounds = converterOf(flags.layout, flags.epoch, type).timeBounds(fromMs, toMs, {
    ...(genMethod === undefined ? {} : { genMethod }),
    ...(version === undefined ? {} : { version }),
  });
  const ids = printRanges(bounds.ids, flags.signed === true);
  const { uuids } = bounds;
  return {
    from: new Date(fromMs).toISOString(),
    to: new Date(toMs).toISOString(),
    ...{ fromMs, toMs, ids, uuids },
    sql: sqlOf(column, ids),
    uuidSql: sqlOf(column, [{ min: `'${uuids.min}'`, max: `'${uuids.max}'` }]),
  };
}

/** `vesta bounds`: the id ranges and UUIDv7 bounds of a time window, offline. */
export function boundsCommand(): Command {
  const command = new Command('bounds')
    .option('--from <date>', 'first instant of the window: ISO-8601 or Unix ms (inclusive)')
    .option('--to <date>', 'last instant of the window: ISO-8601 or Unix ms (inclusive)')
    .option('--date <day>', 'the window is this whole UTC day (YYYY-MM-DD)')
    .option(
      '--gen-method <n>',
      'only the ids of this generation method (default: every one, a range each)',
    )
    .option('--version <n>', 'only the ids of this version (default 0)');
  return addLayoutFlags(command, true)
    .option('--column <name>', 'column of the SQL predicates', 'id')
    .option(
      '--signed',
      "print ids as a signed 64-bit column holds them (Java's long, PostgreSQL's bigint)",
    )
    .option('--sql', 'print only the SQL predicate of the ids')
    .option('--uuid-sql', 'print only the SQL predicate of the UUIDs')
    .action((flags: BoundsFlags & { sql?: boolean; uuidSql?: boolean }) => {
      try {
        if (flags.sql === true && flags.uuidSql === true) {
          throw invalid('give --sql or --uuid-sql, not both');
        }
        const bounds = boundsOf(flags);
        const line =
          flags.sql === true
            ? bounds.sql
            : flags.uuidSql === true
              ? bounds.uuidSql
              : JSON.stringify(bounds);
        process.stdout.write(`${line}\n`);
      } catch (error) {
        reportCommandError('bounds', error);
      }
    });
}
