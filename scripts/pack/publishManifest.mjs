/**
 * @typedef {object} Manifest The fields of a package.json that packing reads or writes.
 * @property {string} name
 * @property {string} version
 * @property {boolean} [private]
 * @property {string} [license]
 * @property {Record<string, string>} [engines]
 * @property {{ type: string, url: string, directory?: string }} [repository]
 * @property {string} [homepage]
 * @property {{ url: string }} [bugs]
 * @property {Record<string, unknown>} [publishConfig]
 */

/** The publishConfig fields that replace the package's own when it is published (as pnpm does). */
const PUBLISHED_ENTRIES = ['exports', 'main', 'types', 'bin'];

/** Fields of the workspace manifest that a user of the tarball has no use for. */
const WORKSPACE_ONLY = ['scripts', 'devDependencies'];

const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'];

/** Thrown when a package cannot be packed as it is (the lifecycle script exits 1 with it). */
export class PackError extends Error {
  /** @override */
  name = 'PackError';
}

/**
 * A `workspace:` range as published: `workspace:*` is the exact version, `workspace:^` and
 * `workspace:~` that version with the operator, anything else after `workspace:` as written
 * (the rewrite `pnpm pack` makes, so that both tarballs carry the same ranges).
 *
 * @param {string} name
 * @param {string} range
 * @param {ReadonlyMap<string, string>} versions
 * @returns {string}
 */
function publishedRange(name, range, versions) {
  if (!range.startsWith('workspace:')) return range;
  const version = versions.get(name);
  if (version === undefined) {
    throw new PackError(`${name} is no public package of this workspace: cannot publish ${range}`);
  }
  const spec = range.slice('workspace:'.length);
  if (spec === '*') return version;
  if (spec === '^' || spec === '~') return `${spec}${version}`;
  return spec;
}

/**
 * The manifest a package is published with, from its workspace manifest: the publishConfig
 * entries (compiled `dist/` files) in place of the source ones, every `workspace:` range
 * replaced by the real version, the metadata declared once in the root manifest (license,
 * engines, repository with the package's directory, homepage, bugs), and no scripts or
 * devDependencies. `publishConfig` keeps what the registry reads (`access`).
 *
 * @param {Manifest & Record<string, unknown>} manifest the package's workspace manifest
 * @param {Manifest} root the repository's root manifest
 * @param {string} dir the package's directory from the root, e.g. `packages/core`
 * @param {ReadonlyMap<string, string>} versions every public workspace package's version
 * @returns {Record<string, unknown>}
 */
export function publishManifest(manifest, root, dir, versions) {
  if (manifest.private === true) throw new PackError(`${manifest.name} is private`);
  const { repository, homepage, bugs } = root;
  if (repository === undefined || homepage === undefined || bugs === undefined) {
    throw new PackError('the root package.json must declare repository, homepage and bugs');
  }
  const publishConfig = manifest.publishConfig ?? {};
  /** @type {Record<string, unknown>} */
  const published = {
    ...Object.fromEntries(
      Object.entries(manifest).filter(
        ([field]) => !WORKSPACE_ONLY.includes(field) && field !== 'publishConfig',
      ),
    ),
    ...Object.fromEntries(
      Object.entries(publishConfig).filter(([field]) => PUBLISHED_ENTRIES.includes(field)),
    ),
  };
  const registryConfig = Object.fromEntries(
    Object.entries(publishConfig).filter(([field]) => !PUBLISHED_ENTRIES.includes(field)),
  );
  if (Object.keys(registryConfig).length > 0) published['publishConfig'] = registryConfig;

  for (const field of DEPENDENCY_FIELDS) {
    const ranges = /** @type {Record<string, string> | undefined} */ (manifest[field]);
    if (ranges === undefined) continue;
    published[field] = Object.fromEntries(
      Object.entries(ranges).map(([name, range]) => [name, publishedRange(name, range, versions)]),
    );
  }

  published['license'] = manifest.license ?? root.license;
  published['engines'] = { ...root.engines, ...manifest.engines };
  published['repository'] = { ...repository, directory: dir };
  published['homepage'] = `${homepage.replace(/#.*$/, '')}/tree/main/${dir}#readme`;
  published['bugs'] = bugs;
  return published;
}
