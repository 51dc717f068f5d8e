import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the services of a host-lock scope that read the system clock keep their host marks:
 * `vesta-host-marks/<scope digest>` under `$VESTA_HOST_MARKS_DIR`, else the temp dir. They
 * survive a process (a crash, a restart, another state dir), not a reboot.
 */
export function hostMarksDir(scope: string): string {
  const root = process.env['VESTA_HOST_MARKS_DIR'] ?? join(tmpdir(), 'vesta-host-marks');
  return join(root, createHash('sha256').update(scope).digest('hex').slice(0, 16));
}
