import { execFile } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { withoutNpmConfig } from './withoutNpmConfig.js';

const run = promisify(execFile);
const PNPM = resolve(import.meta.dirname, '../../../../scripts/pnpm.sh');

/** The package manager that packs. */
export type Packer = 'npm' | 'pnpm';

/** The fields of a packed manifest the packaging spec reads. */
export interface PackedManifest {
  readonly name: string;
  readonly version: string;
  readonly license?: string;
  readonly exports: Record<string, Record<string, string>>;
  readonly main?: string;
  readonly types?: string;
  readonly bin?: Record<string, string>;
  readonly files?: string[];
  readonly engines?: Record<string, string>;
  readonly repository?: { type: string; url: string; directory?: string };
  readonly homepage?: string;
  readonly bugs?: { url: string };
  readonly scripts?: Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  readonly publishConfig?: Record<string, unknown>;
}

/** One tarball as a package manager packed it. */
export interface PackedPackage {
  readonly tarball: string;
  /** Where the tarball's contents were unpacked. */
  readonly dir: string;
  /** Every file in the tarball, without the leading `package/`. */
  readonly files: readonly string[];
  readonly manifest: PackedManifest;
}

/** How long packing every package may take on a loaded 2-core machine. */
const PACK_DEADLINE_MS = 240_000;

/**
 * Packs every package under `packages/` of `workspace` with `packer` (`npm pack` of each
 * directory, or `pnpm -r pack`), each running its own prepack and postpack, into
 * `destination`; returns the tarballs by package name.
 */
export async function packPublicPackages(
  workspace: string,
  packer: Packer,
  destination: string,
): Promise<Map<string, PackedPackage>> {
  await mkdir(destination, { recursive: true });
  const options = { cwd: workspace, env: withoutNpmConfig(), timeout: PACK_DEADLINE_MS };
  if (packer === 'npm') {
    const dirs = (await readdir(join(workspace, 'packages'))).map((dir) => `./packages/${dir}`);
    await run('npm', ['pack', '--pack-destination', destination, ...dirs], options);
  } else {
    await run(
      'sh',
      [PNPM, '-r', '--filter', './packages/*', 'pack', '--pack-destination', destination],
      options,
    );
  }
  const packed = new Map<string, PackedPackage>();
  for (const file of await readdir(destination)) {
    if (!file.endsWith('.tgz')) continue;
    const tarball = join(destination, file);
    const { stdout: listing } = await run('tar', ['-tzf', tarball]);
    const files = listing
      .split('\n')
      .filter(Boolean)
      .map((path) => path.replace(/^package\//, ''));
    const { stdout: json } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
    const manifest = JSON.parse(json) as PackedManifest;
    const dir = join(destination, 'unpacked', manifest.name);
    await mkdir(dir, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
    packed.set(manifest.name, { tarball, dir, files, manifest });
  }
  return packed;
}
