import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Replaces a file so that, once this returns, the new content survives a crash and a reader
 * never sees a torn file: write a temporary file, fsync it, rename it over the old one, fsync
 * the directory. Throws the file system's error; callers wrap it in their coded error.
 */
export function writeFileDurably(path: string, body: string): void {
  replaceFile(path, body, true);
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
  replaceFile(path, body, false);
}

/**
 * Writes `body` to a fresh temporary file beside `path` (created exclusively, mode 0600: never
 * through a link planted under its name) and renames it over `path`, which replaces a link
 * there instead of writing through it. A write that fails removes its temporary file, so a
 * full or read-only disk leaves no file behind however often it is retried.
 */
function replaceFile(path: string, body: string, sync: boolean): void {
  const tmp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    try {
      writeSync(fd, body);
      if (sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    removeQuietly(tmp);
    throw error;
  }
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // The write's own error is the one to report; a file that cannot be removed either is left.
  }
}
