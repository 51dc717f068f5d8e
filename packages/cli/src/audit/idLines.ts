import type { Readable } from 'node:stream';
import { createReadStream } from 'node:fs';
import { VestaError } from '@vesta/core';
import { importOptional } from '@vesta/core/kit';

/** Receives one line of input: its text (trimmed, never empty) and its 1-based line number. */
export type IdLineHandler = (text: string, line: number) => void;

/** Where `vesta audit` reads its ids; a `rereadable` one (a file) is read again for duplicates' lines. */
export interface IdLineSource {
  /** What the report names as the input (`stdin`, the file's path, `postgres`). */
  readonly name: string;
  readonly rereadable: boolean;
  read(onLine: IdLineHandler): Promise<void>;
}

/** The longest line kept whole (an id or a UUID is at most 36 characters). */
const MAX_LINE = 1024;

/** Hands each non-blank line of `input` to `onLine`, trimmed, with the file's line number. */
export async function readIdLines(input: Readable, onLine: IdLineHandler): Promise<void> {
  input.setEncoding('utf8');
  let line = 0;
  let rest = '';
  const take = (raw: string): void => {
    line++;
    const text = raw.trim();
    if (text !== '') onLine(text, line);
  };
  for await (const chunk of input as AsyncIterable<string>) {
    let start = 0;
    const text = rest === '' ? chunk : rest + chunk;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      take(text.slice(start, end));
      start = end + 1;
    }
    rest = text.slice(start, start + MAX_LINE + 1);
  }
  if (rest !== '') take(rest);
}

/** Reads `path`; INVALID_ARGUMENT when it cannot be read. */
async function readFile(path: string, onLine: IdLineHandler): Promise<void> {
  try {
    await readIdLines(createReadStream(path, { highWaterMark: 1 << 20 }), onLine);
  } catch (error) {
    if (VestaError.is(error) || typeof (error as NodeJS.ErrnoException).code !== 'string') {
      throw error;
    }
    throw new VestaError('INVALID_ARGUMENT', `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The lines of the file at `path` (`-` or undefined: stdin, which can be read only once). */
export function fileIdLines(path: string | undefined): IdLineSource {
  if (path === undefined || path === '-') {
    return {
      name: 'stdin',
      rereadable: false,
      read: (onLine) => readIdLines(process.stdin, onLine),
    };
  }
  return { name: path, rereadable: true, read: (onLine) => readFile(path, onLine) };
}

/** Rows fetched from the cursor at a time: the most the audit holds of a query's result. */
const FETCH_ROWS = 10_000;

/** A row's first column as the text of an id: int8 and numeric arrive as decimal strings already. */
function cellText(cell: unknown): string {
  if (typeof cell === 'string') return cell.trim();
  if (typeof cell === 'number' || typeof cell === 'bigint') return String(cell);
  return cell === null || cell === undefined ? '' : JSON.stringify(cell);
}

/** The first column of `query`'s rows through a read-only server-side cursor; INVALID_ARGUMENT. */
export function postgresIdLines(url: string, query: string): IdLineSource {
  return {
    name: 'postgres',
    rereadable: false,
    read: async (onLine) => {
      const { default: pg } = await importOptional('pg', () => import('pg'), '--postgres needs');
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        await client.query('BEGIN READ ONLY');
        await client.query(`DECLARE vesta_audit NO SCROLL CURSOR FOR ${query}`);
        let line = 0;
        for (;;) {
          const { rows } = await client.query<unknown[]>({
            text: `FETCH ${FETCH_ROWS} FROM vesta_audit`,
            rowMode: 'array',
          });
          for (const row of rows) {
            line++;
            const text = cellText(row[0]);
            if (text !== '') onLine(text, line);
          }
          if (rows.length < FETCH_ROWS) break;
        }
        await client.query('COMMIT');
      } catch (error) {
        if (VestaError.is(error)) throw error;
        throw new VestaError(
          'INVALID_ARGUMENT',
          `--postgres: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  };
}
