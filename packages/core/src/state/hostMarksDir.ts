import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Logger } from '../logging/Logger.js';

/** What decides where host marks live; `process`'s own by default. */
export interface HostMarksPlace {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The OS user id; `undefined` where the platform has none (Windows). */
  readonly uid: number | undefined;
  readonly platform: NodeJS.Platform;
  /**
   * Why a runtime directory cannot hold this user's marks, or `undefined` when it can.
   * @default {@link runtimeDirProblem}: its `lstat`
   */
  readonly runtimeDirProblem?: (path: string, uid: number | undefined) => string | undefined;
}

/**
 * Why `$XDG_RUNTIME_DIR` is not this user's own, or `undefined` when it is: a directory (not a
 * symbolic link) owned by `uid` that neither its group nor others may write. After `su` without
 * `-` the variable still names the first user's directory.
 */
function runtimeDirProblem(path: string, uid: number | undefined): string | undefined {
  let stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    return `cannot be examined (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (stats.isSymbolicLink()) return 'is a symbolic link';
  if (!stats.isDirectory()) return 'is not a directory';
  if (uid !== undefined && stats.uid !== uid) {
    return `is owned by uid ${stats.uid}, not by this process's user (uid ${uid})`;
  }
  if ((stats.mode & 0o022) !== 0) {
    return `is writable by other users (mode 0${(stats.mode & 0o777).toString(8).padStart(3, '0')})`;
  }
  return undefined;
}

const THIS_PROCESS: HostMarksPlace = {
  env: process.env,
  uid: process.getuid?.(),
  platform: process.platform,
};

/**
 * The directory under which the services of this OS user keep their host marks, one
 * subdirectory per host-lock scope ({@link hostMarksDir}). Other users must not be able to
 * create, replace or write into it, so a per-user runtime location comes before the shared temp
 * dir:
 *
 * 1. `$VESTA_HOST_MARKS_DIR`, when set (the operator's choice);
 * 2. `/run/vesta` for root on Linux (only root can write under `/run`);
 * 3. `$XDG_RUNTIME_DIR/vesta`, the user's own runtime directory, when set to an absolute path
 *    of a directory this user owns and no one else may write (checked with `lstat`; else
 *    skipped, with a warning on `logger`);
 * 4. `<temp dir>/vesta-host-marks-<uid>`, where another user could create the name first: the
 *    directory is then refused (`STATE_DIR_UNSAFE`, see `ensurePrivateDir`), never used.
 *
 * All of them are emptied at reboot, or may be: host marks cover a restart of the process, the
 * state dir a restart of the host.
 */
export function hostMarksRoot(place: HostMarksPlace = THIS_PROCESS, logger?: Logger): string {
  const configured = place.env['VESTA_HOST_MARKS_DIR'];
  if (configured !== undefined && configured !== '') return configured;
  if (place.uid === 0 && place.platform === 'linux') return '/run/vesta';
  const fallback = join(tmpdir(), `vesta-host-marks-${String(place.uid ?? 'user')}`);
  const runtime = place.env['XDG_RUNTIME_DIR'];
  if (runtime === undefined || !isAbsolute(runtime)) return fallback;
  const problem = (place.runtimeDirProblem ?? runtimeDirProblem)(runtime, place.uid);
  if (problem === undefined) return join(runtime, 'vesta');
  logger?.warn(
    { path: runtime, problem, hostMarksDir: fallback },
    `XDG_RUNTIME_DIR ${runtime} ${problem}: it is not used for the host marks, which go to ${fallback} (set VESTA_HOST_MARKS_DIR to choose)`,
  );
  return fallback;
}

/** The directory of one host-lock scope's marks under `root`, named by a digest of the scope. */
export function hostMarksDir(root: string, scope: string): string {
  return join(root, createHash('sha256').update(scope).digest('hex').slice(0, 16));
}
