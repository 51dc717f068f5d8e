import { createReadStream } from 'node:fs';
import { VestaError } from '@vesta/core';
import type { IdLineHandler, IdLineSource } from './IdLineSource.js';
import { readIdLines } from './readIdLines.js';

/** Reads `path`; a file that cannot be read (missing, a directory, no permission) is INVALID_ARGUMENT. */
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
