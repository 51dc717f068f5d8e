import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Replaces a file so that, once this returns, it survives a crash and is never seen torn. */
export function writeFileDurably(path: string, body: string): void {
  replaceFile(path, body, true);
  const dirFd = openSync(dirname(path), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/** {@link writeFileDurably} without fsync: the content survives the process, not the host. */
export function writeFileAtomically(path: string, body: string): void {
  replaceFile(path, body, false);
}

/** A fresh temporary file (exclusive, 0600: never through a planted link), renamed over `path`. */
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
    try {
      rmSync(tmp, { force: true });
    } catch {
      // The write's own error is the one to report.
    }
    throw error;
  }
}
