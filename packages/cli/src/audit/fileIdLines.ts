import { createReadStream } from 'node:fs';
import type { IdLineSource } from './IdLineSource.js';
import { readIdLines } from './readIdLines.js';

/** The lines of the file at `path` (`-` or undefined: stdin, which can be read only once). */
export function fileIdLines(path: string | undefined): IdLineSource {
  if (path === undefined || path === '-') {
    return {
      name: 'stdin',
      rereadable: false,
      read: (onLine) => readIdLines(process.stdin, onLine),
    };
  }
  return {
    name: path,
    rereadable: true,
    read: (onLine) => readIdLines(createReadStream(path, { highWaterMark: 1 << 20 }), onLine),
  };
}
