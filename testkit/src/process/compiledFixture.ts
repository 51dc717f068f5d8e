import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { cjsDynamicImports } from './cjsDynamicImports.js';
import { NODE_BUNDLE, writeWhole } from './nodeBundle.js';
import { ownLocation } from './ownLocation.js';

/**
 * Node's options for a {@link compiledFixture}: what a bundle leaves to Node (a package it
 * imports lazily and esbuild could not find; see {@link compiledFixture}) resolves to the
 * compiled `dist/` of the workspace's packages, as the bundled ones do.
 */
export const FIXTURE_EXEC_ARGV: readonly string[] = ['--conditions=vesta-dist'];

const ROOT = join(import.meta.dirname, '../../..');

/**
 * Where the modules that bundles of {@link compiledFixtures} share are written (gitignored, in
 * node_modules), named by their content.
 */
const SHARED_CHUNKS = join(ROOT, 'node_modules/.cache/vesta-fixtures');

/**
 * Test helper: removes the modules {@link compiledFixtures} shared that no compile wrote for
 * `maxAgeMs` (each compile writes its shared modules anew, so a module in use is recent). Named by
 * their content, they pile up as the packages' code changes; the integration project's global
 * setup prunes them before any test runs.
 */
export async function pruneFixtureChunks(maxAgeMs = 86_400_000): Promise<void> {
  const names = await readdir(SHARED_CHUNKS).catch(() => []);
  const before = Date.now() - maxAgeMs;
  await Promise.all(
    names.map(async (name) => {
      const file = join(SHARED_CHUNKS, name);
      const { mtimeMs } = await stat(file).catch(() => ({ mtimeMs: Infinity }));
      if (mtimeMs < before) await rm(file, { force: true });
    }),
  );
}

/** A package's source file, split at its `src/`: the folder before it, and the path after. */
const PACKAGE_SOURCE = /^(.*[/\\]packages[/\\][^/\\]+)[/\\]src[/\\](.+)\.ts$/;

/** Source files that `tsc -b` does not compile into `dist/` (tsconfig.build.json's exclude). */
const NOT_IN_DIST = /^(testing|__fixtures__)[/\\]|\.spec$/;

/**
 * The compiled twin in `dist/` of a package's source file; undefined for a file `tsc -b` does not
 * compile (a test helper, a fixture). A source without its twin fails the compile: bundling it
 * instead would put a second copy of the module beside the package's own (two VestaError
 * classes), and a twin without its source would run code that no longer exists.
 */
function distOf(file: string): string | undefined {
  const parts = PACKAGE_SOURCE.exec(file);
  if (parts === null) return undefined;
  const [, pkg = '', rest = ''] = parts;
  if (NOT_IN_DIST.test(rest)) return undefined;
  const dist = `${pkg}${sep}dist${sep}${rest}.js`;
  if (!existsSync(file)) throw new Error(`${file} does not exist (a stale import?)`);
  if (!existsSync(dist)) {
    throw new Error(`${dist} is missing: build the packages first (npm run build)`);
  }
  return dist;
}

/**
 * Where a fixture's imports come from: a package's source file reached through a relative path
 * from TypeScript (a fixture, a test helper) is its twin in `dist/`, the module `@vesta/*`
 * resolves to under the `vesta-dist` condition, so each module is bundled once. esbuild itself
 * is left to Node (a native binary behind a service, which the test kit imports only when it
 * compiles); packages imported lazily are cjsDynamicImports' (one esbuild cannot find, an
 * optional peer such as segment's `pg`, is left to Node too).
 */
const fromDist: Plugin = {
  name: 'from-dist',
  setup(compile) {
    compile.onResolve({ filter: /^\.\.?\// }, ({ path, importer, resolveDir }) => {
      if (!importer.endsWith('.ts')) return undefined;
      const dist = distOf(resolve(resolveDir, path.replace(/\.js$/, '.ts')));
      return dist === undefined ? undefined : { path: dist };
    });
    compile.onResolve({ filter: /^esbuild$/ }, ({ path }) => ({ path, external: true }));
  },
};

/**
 * Where the bundle of `source` goes: beside it (`run.ts` or `run.fixture.ts` -> `run.fixture.mjs`; gitignored). In a
 * set of several, its name also names the set (`run.<set>.fixture.mjs`): the same source bundled
 * with other companions imports other shared modules.
 */
function bundlePath(source: string, set: string | undefined): string {
  const stem = source.replace(/(\.fixture)?\.[cm]?[jt]s$/, '');
  return set === undefined ? `${stem}.fixture.mjs` : `${stem}.${set}.fixture.mjs`;
}

async function compile(sources: readonly string[]): Promise<string[]> {
  const set =
    sources.length === 1
      ? undefined
      : createHash('sha256')
          .update([...sources].sort().join('\n'))
          .digest('hex')
          .slice(0, 8);
  const outs = sources.map((source) => bundlePath(source, set));
  // Loaded on first use: most files that import the test kit never compile a fixture.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: sources.map((source, i) => ({
      in: source,
      out: relative(ROOT, outs[i] ?? '').replace(/\.mjs$/, ''),
    })),
    outdir: ROOT,
    outExtension: { '.js': '.mjs' },
    ...NODE_BUNDLE,
    splitting: set !== undefined,
    chunkNames: `${relative(ROOT, SHARED_CHUNKS)}/[name]-[hash]`,
    plugins: [fromDist, cjsDynamicImports, ownLocation],
  });
  const entries = result.outputFiles.filter((file) => outs.includes(file.path));
  if (entries.length !== outs.length) {
    throw new Error(`esbuild wrote ${basename(outs[0] ?? '')} and its set incompletely`);
  }
  // The shared modules first: an entry that another test file reads finds what it imports.
  const shared = result.outputFiles.filter((file) => !outs.includes(file.path));
  if (shared.length > 0) await mkdir(SHARED_CHUNKS, { recursive: true });
  await Promise.all(shared.map((file) => writeWhole(file.path, file.contents)));
  await Promise.all(entries.map((file) => writeWhole(file.path, file.contents)));
  return outs;
}

function pathOf(source: string | URL): string {
  return source instanceof URL || source.startsWith('file:')
    ? fileURLToPath(source)
    : resolve(source);
}

/**
 * Caches a compile per key (once per test process: a fork runs several test files one after
 * the other), forgetting one that failed.
 */
function once<T>(cache: Map<string, Promise<T>>, key: string, start: () => Promise<T>): Promise<T> {
  let done = cache.get(key);
  if (done === undefined) {
    done = start();
    cache.set(key, done);
    done.catch(() => cache.delete(key));
  }
  return done;
}

const compiled = new Map<string, Promise<string>>();
const compiledSets = new Map<string, Promise<string[]>>();

/**
 * Test helper: a child-process fixture written in TypeScript, bundled whole for plain Node (once
 * per test file), and the path of the bundle; run it as `node ...FIXTURE_EXEC_ARGV <path>`. A
 * start then reads one file, where `node --import tsx` cost about 1.5 s of CPU and Node's loader
 * over the packages' hundreds of small files about half a second; and the spawned process is
 * still the one running the fixture (a SIGKILL reaches it).
 *
 * The bundle holds the fixture, the test helpers it imports, the workspace's packages as `tsc`
 * compiled them (their `dist/`, under the `vesta-dist` condition; build first) and the
 * third-party files Node would load: each module once, each with its own location (see
 * ownLocation), so what a package reads beside its file is found, and a package it imports
 * lazily is still evaluated only then. The bundle sits beside the source, so the fixture's
 * `import.meta.url` is where it was. A fixture that imports another compiled module at run time
 * (and so must share its modules) is compiled with it: {@link compiledFixtures}.
 */
export function compiledFixture(source: string | URL): Promise<string> {
  const path = pathOf(source);
  return once(compiled, path, async () => (await compile([path]))[0] ?? '');
}

/**
 * Test helper: like {@link compiledFixture}, for fixtures that one process loads together (a
 * child and the module it imports by its URL): the modules they share are written once, beside
 * the test kit's other caches, and imported by each, so that the process holds one copy of each
 * module (one VestaError class) as it would unbundled. Resolves with the bundles' paths, in the
 * order of `sources`.
 */
export function compiledFixtures(sources: readonly (string | URL)[]): Promise<string[]> {
  const paths = sources.map(pathOf);
  return once(compiledSets, paths.join('\n'), () => compile(paths));
}
