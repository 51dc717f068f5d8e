import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { cjsDynamicImports } from './cjsDynamicImports.js';
import { NODE_BUNDLE, writeWhole } from './nodeBundle.js';
import { ownLocation } from './ownLocation.js';

const ROOT = join(import.meta.dirname, '../../..');

/** The compiled `vesta` bin that {@link bundleVestaCli} bundles. */
export const VESTA_DIST_BIN = join(ROOT, 'packages/cli/dist/bin.js');

/**
 * Where {@link bundleVestaCli} writes the bundle's entry: outside every package's `dist/`, so
 * that no pack ships it (and gitignored, in node_modules). Its chunks lie beside it.
 */
export const VESTA_CLI_BUNDLE = join(ROOT, 'node_modules/.cache/vesta-cli/bin.mjs');

/** How long a chunk no build wrote stays beside the entry (a build writes all of its own anew). */
const CHUNK_MAX_AGE_MS = 86_400_000;

/**
 * Removes the chunks beside the entry that no build wrote for {@link CHUNK_MAX_AGE_MS}: named by
 * their content, they pile up as the packages' code changes, and an older entry that another run
 * of the suite may still start reads chunks written by its own (recent) build.
 */
async function pruneStaleChunks(folder: string): Promise<void> {
  const names = await readdir(folder).catch(() => []);
  const before = Date.now() - CHUNK_MAX_AGE_MS;
  await Promise.all(
    names
      .filter((name) => name.startsWith('chunk-'))
      .map(async (name) => {
        const file = join(folder, name);
        const { mtimeMs } = await stat(file).catch(() => ({ mtimeMs: Infinity }));
        if (mtimeMs < before) await rm(file, { force: true });
      }),
  );
}

/**
 * Bundles the compiled `vesta` bin (`packages/cli/dist/bin.js`; build first) with everything it
 * imports into the entry {@link VESTA_CLI_BUNDLE} and its chunks beside it, for the tests' CLI
 * starts (testkit's `VESTA_CLI`): a start then reads a few files where Node's loader resolves
 * and reads hundreds of small ones, about half the CPU of a refused `vesta rest`. The chunks are
 * split at the bin's dynamic imports (esbuild's `splitting`), so a start reads and compiles only
 * what its command loads: `vesta decode` not the REST server, a refused flag not the server it
 * would start.
 *
 * It runs the same code as the unbundled CLI. The workspace's modules are the JavaScript `tsc`
 * wrote (the `vesta-dist` condition), the third-party ones the files Node would load (esbuild
 * resolves with Node's rules and conditions); each module once, each with its own location
 * (see ownLocation). The packages a command imports only when needed (coordinators, gRPC,
 * segment, `pg`) are still evaluated only then; a CommonJS package imported so stays bundled,
 * once (shared with any static import of it, as `@vesta/redis`'s of `ioredis`), and its
 * `import()` gives the namespace Node's would, its `default` and its named exports (see
 * cjsDynamicImports). What users install, the unbundled `dist/` resolved by Node
 * under npm's, pnpm's and yarn's layouts, is what the packaging spec runs.
 */
export async function bundleVestaCli(): Promise<void> {
  const { build } = await import('esbuild');
  const folder = dirname(VESTA_CLI_BUNDLE);
  const result = await build({
    entryPoints: [{ in: VESTA_DIST_BIN, out: 'bin' }],
    outdir: folder,
    outExtension: { '.js': '.mjs' },
    ...NODE_BUNDLE,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    plugins: [cjsDynamicImports, ownLocation],
  });
  const entry = result.outputFiles.find((file) => file.path === VESTA_CLI_BUNDLE);
  if (entry === undefined) throw new Error(`esbuild wrote no entry for ${VESTA_DIST_BIN}`);
  await mkdir(folder, { recursive: true });
  // Whole files, the chunks before the entry that imports them: CLIs of another run of the
  // suite may be starting from them (a chunk is named by its content, so rewriting one that
  // exists writes the same bytes).
  await Promise.all(
    result.outputFiles
      .filter((file) => file !== entry)
      .map((file) => writeWhole(file.path, file.contents)),
  );
  await writeWhole(entry.path, entry.contents);
  await pruneStaleChunks(folder);
}
