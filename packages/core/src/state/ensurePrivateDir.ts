import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { VestaError } from '../errors/VestaError.js';

/**
 * Makes `path` a directory of this OS user's alone, or refuses it: creates it with mode 0700
 * when missing (never through a symlink: `mkdir` does not follow one), then checks with
 * `lstat` that what is there is a directory, not a symlink, owned by this user, and open to no
 * one else. Anything else is `STATE_DIR_UNSAFE`, naming the path and what to do, and nothing is
 * read from or written into it: another local user who created the name first (as in a shared
 * temp dir) could otherwise plant marks that stop this service or steer where it writes.
 *
 * Failures of the file system itself (read-only, no permission to create) are thrown as they
 * come, for the caller to judge.
 */
export function ensurePrivateDir(path: string, hint: string): void {
  mkdirSync(dirname(path), { recursive: true });
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const problem = privateDirProblem(lstatSync(path));
  if (problem !== undefined) {
    throw new VestaError(
      'STATE_DIR_UNSAFE',
      `${path} ${problem}; it is not used. Remove it, or ${hint}`,
      { details: { path } },
    );
  }
}

/** Why a directory entry cannot hold this user's private state, or `undefined` if it can. */
export function privateDirProblem(stats: Stats): string | undefined {
  if (stats.isSymbolicLink()) return 'is a symbolic link';
  if (!stats.isDirectory()) return 'is not a directory';
  return ownerProblem(stats) ?? ((stats.mode & 0o077) !== 0 ? modeProblem(stats) : undefined);
}

/** Why an entry owned by someone else cannot be trusted, or `undefined` if it is this user's. */
export function ownerProblem(stats: Stats): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined || stats.uid === uid) return undefined;
  return `is owned by uid ${stats.uid}, not by this process's user (uid ${uid})`;
}

function modeProblem(stats: Stats): string {
  const mode = (stats.mode & 0o777).toString(8).padStart(3, '0');
  return `is open to other users (mode 0${mode}, 0700 expected)`;
}
