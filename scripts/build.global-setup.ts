import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { bundleVestaCli } from '@vesta/testkit';

/**
 * Vitest global setup of the integration project: compiles the workspace (`tsc -b`,
 * incremental: about a second when nothing changed), then bundles the compiled `vesta` command
 * line that the tests run (testkit's VESTA_CLI and `bundleVestaCli`).
 */
export default async function setup(): Promise<void> {
  const root = join(import.meta.dirname, '..');
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  await bundleVestaCli();
}
