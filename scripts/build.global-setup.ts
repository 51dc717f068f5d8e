import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Vitest global setup of the integration project: compiles the workspace (`tsc -b`,
 * incremental: about a second when nothing changed), since the tests run the `vesta` command
 * line from its compiled `dist/` (testkit's VESTA_CLI), as an installed one runs.
 */
export default function setup(): void {
  const root = join(import.meta.dirname, '..');
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
}
