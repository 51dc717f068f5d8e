import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Replaces a file so that, once this returns, the new content survives a crash and a reader
 * never sees a torn file: write a temporary file, fsync it, rename it over the old one, fsync
 * the directory. Throws the file system's error; callers wrap it in their coded error.
 */
export function writeFileDurably(path: string, body: string): void {
  const tmp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  const fd = openSync(tmp, 'w', 0o644);
  try {
    writeSync(fd, body);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dirFd = openSync(dirname(path), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/**
 * Replaces a file so that a reader never sees a torn file (temporary file, rename), without
 * fsync: the content survives the process, not a crash of the host.
 */
export function writeFileAtomically(path: string, body: string): void {
  const tmp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  writeFileSync(tmp, body, { mode: 0o644 });
  renameSync(tmp, path);
}
