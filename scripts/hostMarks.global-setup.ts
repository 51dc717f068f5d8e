import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest global setup: the host marks of this run's services (and of the processes its tests
 * start, which inherit the variable) go to a temporary directory, removed when the run ends.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'vesta-test-host-marks-'));
  process.env['VESTA_HOST_MARKS_DIR'] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
