import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { withoutNpmConfig } from './withoutNpmConfig.js';

const run = promisify(execFile);

/** How long one `npm install` may take, fetching from the registry on a loaded machine. */
const INSTALL_DEADLINE_MS = 240_000;

/** A package found in a project's node_modules. */
export interface InstalledPackage {
  readonly name: string;
  /** Its directory, relative to the project. */
  readonly path: string;
  readonly scripts: Readonly<Record<string, string>>;
  /** Whether it has a binding.gyp (npm then runs `node-gyp rebuild` as its install script). */
  readonly gyp: boolean;
}

/** Where an NpmProject's installs fetch from. */
export interface NpmProjectOptions {
  /** npm's cache, e.g. under the test's temporary directory: later installs reuse it. */
  readonly cacheDir: string;
  /** The registry of the `@vesta` scope (see startEmptyRegistry). */
  readonly vestaRegistry: string;
}

/** A user's fresh project directory: `dir` with a private `package.json` named `consumer`. */
export async function createConsumerDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2)}\n`,
  );
}

/**
 * A fresh npm project in a directory of its own, as a user makes one (`package.json` and
 * nothing else), installed into with the real `npm install`: the public registry for
 * everything but the `@vesta` scope, whose packages must come from the tarballs given.
 */
export class NpmProject {
  private constructor(
    readonly dir: string,
    private readonly options: NpmProjectOptions,
  ) {}

  /** Creates the project's directory and its package.json. */
  static async create(dir: string, options: NpmProjectOptions): Promise<NpmProject> {
    await createConsumerDir(dir);
    return new NpmProject(dir, options);
  }

  /**
   * `npm install <specs>` (tarball paths or registry specs), saved to package.json. Scripts
   * are off: npm runs no script of an installed package but preinstall, install, postinstall
   * (and node-gyp for a binding.gyp), which `installed()` shows; a test asserting none exists
   * proves a plain install runs none, without running one if a regression brings it back.
   */
  async install(specs: readonly string[]): Promise<void> {
    await run(
      'npm',
      [
        'install',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--no-update-notifier',
        '--loglevel=error',
        // A later install takes what an earlier one fetched without asking the registry again.
        '--prefer-offline',
        `--cache=${this.options.cacheDir}`,
        `--@vesta:registry=${this.options.vestaRegistry}`,
        ...specs,
      ],
      { cwd: this.dir, env: withoutNpmConfig(), timeout: INSTALL_DEADLINE_MS },
    );
  }

  /** Every package under node_modules, nested ones included (npm's `.bin` and `.package-lock.json` aside). */
  async installed(): Promise<InstalledPackage[]> {
    const found: InstalledPackage[] = [];
    const visit = async (modules: string): Promise<void> => {
      if (!existsSync(join(this.dir, modules))) return;
      for (const entry of await readdir(join(this.dir, modules))) {
        if (entry.startsWith('.')) continue;
        const dirs = entry.startsWith('@')
          ? (await readdir(join(this.dir, modules, entry))).map((name) => `${entry}/${name}`)
          : [entry];
        for (const name of dirs) {
          const path = join(modules, name);
          const manifest = JSON.parse(
            await readFile(join(this.dir, path, 'package.json'), 'utf8'),
          ) as { name: string; scripts?: Record<string, string> };
          found.push({
            name: manifest.name,
            path,
            scripts: manifest.scripts ?? {},
            gyp: existsSync(join(this.dir, path, 'binding.gyp')),
          });
          await visit(join(path, 'node_modules'));
        }
      }
    };
    await visit('node_modules');
    return found;
  }
}
