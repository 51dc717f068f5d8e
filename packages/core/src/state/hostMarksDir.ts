import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** What decides where host marks live; `process`'s own by default. */
export interface HostMarksPlace {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The OS user id; `undefined` where the platform has none (Windows). */
  readonly uid: number | undefined;
  readonly platform: NodeJS.Platform;
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
 * 3. `$XDG_RUNTIME_DIR/vesta`, the user's own runtime directory, when set to an absolute path;
 * 4. `<temp dir>/vesta-host-marks-<uid>`, where another user could create the name first: the
 *    directory is then refused (`STATE_DIR_UNSAFE`, see `ensurePrivateDir`), never used.
 *
 * All of them are emptied at reboot, or may be: host marks cover a restart of the process, the
 * state dir a restart of the host.
 */
export function hostMarksRoot(place: HostMarksPlace = THIS_PROCESS): string {
  const configured = place.env['VESTA_HOST_MARKS_DIR'];
  if (configured !== undefined && configured !== '') return configured;
  if (place.uid === 0 && place.platform === 'linux') return '/run/vesta';
  const runtime = place.env['XDG_RUNTIME_DIR'];
  if (runtime !== undefined && isAbsolute(runtime)) return join(runtime, 'vesta');
  return join(tmpdir(), `vesta-host-marks-${String(place.uid ?? 'user')}`);
}

/** The directory of one host-lock scope's marks under `root`, named by a digest of the scope. */
export function hostMarksDir(root: string, scope: string): string {
  return join(root, createHash('sha256').update(scope).digest('hex').slice(0, 16));
}
