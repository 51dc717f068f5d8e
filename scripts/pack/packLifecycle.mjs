/**
 * The pack lifecycle of every public package: its `prepack`, `postpack` and `prepublishOnly`
 * scripts run `node ../../scripts/pack/packLifecycle.mjs <event>` in the package's directory.
 * Plain Node, no TypeScript loader: npm and pnpm run it wherever the package is packed.
 *
 * - `prepack` writes the publish manifest (see publishManifest.mjs) over package.json, copies
 *   the repository's LICENSE in, and keeps what it replaced in `.vesta-pack.json`. `npm pack` packs package.json as it is on disk and
 *   `pnpm pack` reads it again after prepack, so both ship the same manifest.
 * - `postpack` puts the workspace manifest back and removes what prepack added. A prepack that
 *   finds `.vesta-pack.json` (left by a pack that died halfway) restores it first. Under
 *   `pnpm pack --dry-run`, which never runs postpack, prepack changes nothing.
 * - `prepublishOnly` refuses `npm publish` in a package directory: npm reads the manifest again
 *   after postpack and would send the workspace one (`workspace:` ranges, source entries) as
 *   the registry's metadata. `pnpm publish`, or `npm publish <tarball>` of a packed tarball
 *   (which runs no script), publish what was packed.
 */
import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { PackError, publishManifest } from './publishManifest.mjs';

const STATE_FILE = '.vesta-pack.json';

/**
 * @typedef {object} PackState What prepack replaced or added, for postpack to undo.
 * @property {string} manifest the workspace package.json, byte for byte
 * @property {string[]} added paths prepack created in the package directory
 */

/**
 * @param {string} path
 * @returns {import('./publishManifest.mjs').Manifest & Record<string, unknown>}
 */
function readManifest(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** @param {string} from */
function workspaceRoot(from) {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dirname(dir) === dir) throw new PackError(`no pnpm-workspace.yaml above ${from}`);
  }
}

/**
 * Replaces a package.json in one step (a temporary file renamed over it): `pnpm -r pack` runs
 * the packages' prepacks side by side, and each reads every other package.json
 * (publicVersions), which must never find one half written.
 *
 * @param {string} path
 * @param {string} text
 */
function replaceManifest(path, text) {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

/** @param {string} root */
function publicVersions(root) {
  /** @type {Map<string, string>} */
  const versions = new Map();
  for (const dir of readdirSync(join(root, 'packages'))) {
    const path = join(root, 'packages', dir, 'package.json');
    if (!existsSync(path)) continue;
    const manifest = readManifest(path);
    if (manifest.private !== true) versions.set(manifest.name, manifest.version);
  }
  return versions;
}

/** @param {string} dir */
function postpack(dir) {
  const statePath = join(dir, STATE_FILE);
  if (!existsSync(statePath)) return;
  /** @type {PackState} */
  const state = JSON.parse(readFileSync(statePath, 'utf8'));
  for (const path of state.added) rmSync(join(dir, path), { recursive: true, force: true });
  replaceManifest(join(dir, 'package.json'), state.manifest);
  rmSync(statePath);
}

/** @param {string} dir */
function prepack(dir) {
  postpack(dir);
  // `pnpm pack --dry-run` runs prepack but never postpack: leave the workspace manifest alone.
  const agent = process.env['npm_config_user_agent'] ?? '';
  if (agent.startsWith('pnpm/') && process.env['npm_config_dry_run'] === 'true') return;
  const root = workspaceRoot(dir);
  const text = readFileSync(join(dir, 'package.json'), 'utf8');
  const manifest = JSON.parse(text);
  /** @type {string[]} */
  const added = [];
  // Written before each change, so that postpack (or the next prepack) undoes a partial run.
  const save = () =>
    writeFileSync(join(dir, STATE_FILE), JSON.stringify({ manifest: text, added }));

  if (!existsSync(join(dir, 'LICENSE'))) {
    added.push('LICENSE');
    save();
    cpSync(join(root, 'LICENSE'), join(dir, 'LICENSE'));
  }
  save();
  const published = publishManifest(
    manifest,
    readManifest(join(root, 'package.json')),
    relative(root, dir),
    publicVersions(root),
  );
  replaceManifest(join(dir, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
}

function prepublishOnly() {
  const agent = process.env['npm_config_user_agent'] ?? '';
  if (agent.startsWith('pnpm/')) return;
  throw new PackError(
    'publish with `pnpm publish`, or `npm publish <tarball>` of a tarball made by `npm pack`: ' +
      '`npm publish` in a package directory would send the workspace manifest to the registry',
  );
}

/** @type {Record<string, (dir: string) => void>} */
const EVENTS = { prepack, postpack, prepublishOnly };

const event = process.argv[2] ?? '';
try {
  const run = EVENTS[event];
  if (run === undefined) throw new PackError(`unknown event "${event}"`);
  run(process.cwd());
} catch (error) {
  if (!(error instanceof PackError)) throw error;
  console.error(`vesta ${event}: ${error.message}`);
  process.exitCode = 1;
}
