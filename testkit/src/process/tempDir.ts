import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A new empty directory under the system's temporary directory, its name starting `prefix`. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
