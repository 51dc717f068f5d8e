import type { Readable } from 'node:stream';
import type { IdLineHandler } from './IdLineSource.js';

/**
 * The longest line kept whole: an id or a UUID is at most 36 characters, so a longer line is
 * garbage either way; cutting it keeps memory bounded on a file without line breaks.
 */
const MAX_LINE = 1024;

/**
 * Hands each line of `input` to `onLine`, trimmed (CRLF and spaces), blank lines skipped but
 * counted, so line numbers are the file's. Reads chunk by chunk: memory holds one chunk and the
 * line it ends in (cut after 1,024 characters), whatever the size of the input.
 */
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
