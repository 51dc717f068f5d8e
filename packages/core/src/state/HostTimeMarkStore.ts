import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { VestaError } from '../errors/VestaError.js';
import type { IdIdentity } from '../identity/IdIdentity.js';
import type { Logger } from '../logging/Logger.js';
import { ensurePrivateDir, FileTimeMarkStore } from './FileTimeMarkStore.js';
import type { TimeMarkStore } from './TimeMarkStore.js';

const HINT = "set VESTA_HOST_MARKS_DIR to a directory of this user's alone (mode 0700)";

/**
 * The host mark of a service on the system clock: without fsync, best effort (one warning),
 * yet STATE_DIR_UNSAFE for what another user planted and STATE_MISMATCH for a repeating mark.
 */
export class HostTimeMarkStore implements TimeMarkStore {
  readonly durable = false;
  /** Undefined once the host mark cannot be kept. */
  #files: FileTimeMarkStore | undefined;

  /** @param scope the host-lock scope: its marks go to a directory of its own under `root` */
  constructor(
    root: string,
    scope: string,
    identity: IdIdentity,
    private readonly logger: Logger,
  ) {
    try {
      const dir = hostMarksDir(root, scope);
      ensurePrivateDir(root, HINT);
      ensurePrivateDir(dir, HINT);
      const options = { durable: false, ownedOnly: true, stateDir: false };
      this.#files = new FileTimeMarkStore(dir, identity, options);
    } catch (error) {
      if (VestaError.is(error, 'STATE_DIR_UNSAFE')) throw error;
      this.#fail(error);
    }
  }

  read(): number | undefined {
    try {
      return this.#files?.read();
    } catch (error) {
      if (VestaError.is(error, 'STATE_MISMATCH') || VestaError.is(error, 'STATE_DIR_UNSAFE')) {
        throw error;
      }
      this.#fail(error);
      return undefined;
    }
  }

  write(markMs: number): void {
    try {
      this.#files?.write(markMs);
    } catch (error) {
      this.#fail(error);
    }
  }

  #fail(error: unknown): void {
    this.#files = undefined;
    this.logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'the host mark cannot be kept: a restart within the same time unit is covered by the state dir only',
    );
  }
}

/** What decides where host marks live; `process`'s own by default. */
export interface HostMarksPlace {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The OS user id; `undefined` where the platform has none (Windows). */
  readonly uid: number | undefined;
  readonly platform: NodeJS.Platform;
  /** Why a runtime directory cannot hold this user's marks. @default by its `lstat` */
  readonly runtimeDirProblem?: (path: string, uid: number | undefined) => string | undefined;
}

/** Why `$XDG_RUNTIME_DIR` is not this user's own (after `su` without `-` it is the first user's). */
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
 * Where this OS user's host marks live: `$VESTA_HOST_MARKS_DIR`; `/run/vesta` for root on Linux;
 * `$XDG_RUNTIME_DIR/vesta` when this user's own; else `<temp dir>/vesta-host-marks-<uid>`.
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

export function hostMarksDir(root: string, scope: string): string {
  return join(root, createHash('sha256').update(scope).digest('hex').slice(0, 16));
}
