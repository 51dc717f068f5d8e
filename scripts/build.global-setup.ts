import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { bundleVestaCli, pruneFixtureChunks } from '@vesta/testkit';

/**
 * Vitest global setup of the integration project: compiles the workspace (`tsc -b`,
 * incremental: about a second when nothing changed), then bundles the compiled `vesta` command
 * line that the tests run (testkit's VESTA_CLI and `bundleVestaCli`), and prunes the fixtures'
 * shared modules that no run wrote for a day (`pruneFixtureChunks`).
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
  await Promise.all([bundleVestaCli(), pruneFixtureChunks()]);
}
