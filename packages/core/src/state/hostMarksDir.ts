import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the services of a host-lock scope that read the system clock keep their host marks:
 * `vesta-host-marks-<uid>/<scope digest>` under `$VESTA_HOST_MARKS_DIR`, else the temp dir,
 * one directory per OS user (created 0700, so no other user can plant or block a mark). They
 * survive a process (a crash, a restart, another state dir), not a reboot.
 */
export function hostMarksDir(scope: string): string {
  const user = process.getuid?.() ?? 'user';
  const root =
    process.env['VESTA_HOST_MARKS_DIR'] ?? join(tmpdir(), `vesta-host-marks-${String(user)}`);
  return join(root, createHash('sha256').update(scope).digest('hex').slice(0, 16));
}
