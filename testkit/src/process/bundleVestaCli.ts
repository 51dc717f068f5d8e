import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { NODE_BUNDLE, writeWhole } from './nodeBundle.js';
import { ownLocation } from './ownLocation.js';

const ROOT = join(import.meta.dirname, '../../..');

/** The compiled `vesta` bin that {@link bundleVestaCli} bundles. */
export const VESTA_DIST_BIN = join(ROOT, 'packages/cli/dist/bin.js');

/**
 * Where {@link bundleVestaCli} writes the bundle: outside every package's `dist/`, so that no
 * pack ships it (and gitignored, in node_modules).
 */
export const VESTA_CLI_BUNDLE = join(ROOT, 'node_modules/.cache/vesta-cli/bin.mjs');

/**
 * Bundles the compiled `vesta` bin (`packages/cli/dist/bin.js`; build first) with everything it
 * imports into the one file {@link VESTA_CLI_BUNDLE}, for the tests' CLI starts (testkit's
 * `VESTA_CLI`): a start then reads one file where Node's loader resolves and reads hundreds of
 * small ones, about half the CPU of a refused `vesta rest`.
 *
 * It runs the same code as the unbundled CLI. The workspace's modules are the JavaScript `tsc`
 * wrote (the `vesta-dist` condition), the third-party ones the files Node would load (esbuild
 * resolves with Node's rules and conditions); each module once, each with its own location
 * (see ownLocation). The packages a command imports only when needed (coordinators, gRPC,
 * segment, `pg`) are still evaluated only then, and a CommonJS one still comes back from
 * `import()` as a namespace with its `default`. What users install, the unbundled `dist/`
 * resolved by Node under npm's, pnpm's and yarn's layouts, is what the packaging spec runs.
 */
export async function bundleVestaCli(): Promise<void> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [VESTA_DIST_BIN],
    outfile: VESTA_CLI_BUNDLE,
    ...NODE_BUNDLE,
    plugins: [ownLocation],
  });
  const text = result.outputFiles[0]?.contents;
  if (text === undefined) throw new Error(`esbuild wrote nothing for ${VESTA_DIST_BIN}`);
  await mkdir(dirname(VESTA_CLI_BUNDLE), { recursive: true });
  // CLIs of another run of the suite may be reading it.
  await writeWhole(VESTA_CLI_BUNDLE, text);
}
