import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createConsumerDir } from './NpmProject.js';
import { withoutNpmConfig } from './withoutNpmConfig.js';

const run = promisify(execFile);

/** How long one `yarn add` may take, fetching from the registry on a loaded machine. */
const ADD_DEADLINE_MS = 240_000;

/** What a YarnProject runs and where it fetches from. */
export interface YarnProjectOptions {
  /** The yarn to run: its `bin/yarn.js`, as `npm install yarn` puts it. */
  readonly yarn: string;
  /** Yarn's cache, e.g. under the test's temporary directory. */
  readonly cacheDir: string;
  /** The registry of the `@vesta` scope (see startTarballRegistry). */
  readonly vestaRegistry: string;
}

/**
 * A fresh project in a directory of its own, installed into with the real `yarn add` (yarn
 * classic, what `npm install yarn` gives): the public registry for everything but the `@vesta`
 * scope, which comes from the registry given.
 */
export class YarnProject {
  private constructor(
    readonly dir: string,
    private readonly options: YarnProjectOptions,
  ) {}

  /** Creates the project's directory, its package.json and the `.yarnrc` naming the registries. */
  static async create(dir: string, options: YarnProjectOptions): Promise<YarnProject> {
    await createConsumerDir(dir);
    await writeFile(
      join(dir, '.yarnrc'),
      [
        'registry "https://registry.npmjs.org/"',
        `"@vesta:registry" "${options.vestaRegistry}"`,
        '',
      ].join('\n'),
    );
    return new YarnProject(dir, options);
  }

  /** `yarn add <specs>` (registry specs), scripts off as in NpmProject. */
  async add(specs: readonly string[]): Promise<void> {
    await run(
      process.execPath,
      [
        this.options.yarn,
        'add',
        '--ignore-scripts',
        '--non-interactive',
        '--no-progress',
        '--silent',
        '--prefer-offline',
        `--cache-folder=${this.options.cacheDir}`,
        ...specs,
      ],
      { cwd: this.dir, env: withoutNpmConfig(), timeout: ADD_DEADLINE_MS },
    );
  }
}
