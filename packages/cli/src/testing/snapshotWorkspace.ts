import { cp, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The root files that packing a package reads: its build config, the pack scripts, metadata. */
const ROOT_FILES = ['package.json', 'LICENSE', 'tsconfig.base.json', 'scripts/pack'];

/**
 * Copies what packing the public packages reads (`packages/*` without their `node_modules`,
 * the root manifest, LICENSE, tsconfig.base.json and scripts/pack) from the workspace at `root`
 * to `to`, and links every `node_modules` back to the workspace's install. Packing rewrites
 * each package.json between prepack and postpack: done in the copy, specs running beside this
 * one never read a publish manifest in the workspace. Times are kept, so `tsc -b` in a copied
 * package finds its dist/ up to date.
 */
export async function snapshotWorkspace(root: string, to: string): Promise<void> {
  await mkdir(join(to, 'scripts'), { recursive: true });
  for (const file of ROOT_FILES) {
    await cp(join(root, file), join(to, file), { recursive: true, preserveTimestamps: true });
  }
  await writeFile(join(to, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n');
  await symlink(join(root, 'node_modules'), join(to, 'node_modules'));
  for (const dir of await readdir(join(root, 'packages'))) {
    const from = join(root, 'packages', dir);
    await cp(from, join(to, 'packages', dir), {
      recursive: true,
      preserveTimestamps: true,
      filter: (path) => path !== join(from, 'node_modules'),
    });
    await symlink(join(from, 'node_modules'), join(to, 'packages', dir, 'node_modules'));
  }
}
