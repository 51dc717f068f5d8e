import { randomUUID } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import type { BuildOptions } from 'esbuild';

/**
 * What the test kit's bundles share (the CLI's, `bundleVestaCli`, and the fixtures',
 * `compiledFixture`): one ES module file for Node 20, held in memory (written by
 * {@link writeWhole}), the workspace's packages from their compiled `dist/` (the `vesta-dist`
 * condition), and a banner that gives the bundled CommonJS modules what they `require` of Node
 * itself (`node:net`, `node:fs`...), since an ES module has no `require` of its own.
 */
export const NODE_BUNDLE = {
  bundle: true,
  write: false,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['vesta-dist'],
  logLevel: 'silent',
  banner: {
    js: "import { createRequire as __vestaRequire } from 'node:module'; const require = __vestaRequire(import.meta.url);",
  },
} as const satisfies BuildOptions;

/**
 * Writes a bundle whole: to a temporary file beside `path`, renamed over it, since another test
 * file (or another run of the suite) may be reading or writing the same bundle at the same time.
 */
export async function writeWhole(path: string, contents: Uint8Array): Promise<void> {
  const temp = `${path}.${randomUUID()}.tmp`;
  try {
    await writeFile(temp, contents);
    await rename(temp, path);
  } finally {
    await rm(temp, { force: true });
  }
}
