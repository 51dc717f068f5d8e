import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { runToExit } from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareImports } from './testing/bareImports.js';
import { NpmProject } from './testing/NpmProject.js';
import {
  type PackedPackage,
  type Packer,
  packPublicPackages,
} from './testing/packPublicPackages.js';
import { snapshotWorkspace } from './testing/snapshotWorkspace.js';
import { spawnVesta } from './testing/spawnVesta.js';
import { type EmptyRegistry, startEmptyRegistry } from './testing/startEmptyRegistry.js';
import { startTarballRegistry, type TarballRegistry } from './testing/startTarballRegistry.js';
import { YarnProject } from './testing/YarnProject.js';
import { withoutNpmConfig } from './testing/withoutNpmConfig.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../../..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const PACKERS: readonly Packer[] = ['npm', 'pnpm'];
/** The yarn a yarn user gets from `npm install yarn` (yarn classic). */
const YARN = '1.22.22';
const REPOSITORY = 'git+https://github.com/vesta-node/vesta-node.git';

/** Each coordinator's package and the client library it brings. */
const COORDINATORS = {
  '@vesta/etcd': 'etcd3',
  '@vesta/postgres': 'pg',
  '@vesta/redis': 'ioredis',
  '@vesta/zookeeper': 'node-zookeeper-client',
} as const;

/** The scripts npm runs for an installed package (besides node-gyp for a binding.gyp). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

let work: string;
let vestaRegistry: EmptyRegistry | undefined;
let yarnRegistry: TarballRegistry | undefined;
const packedBy = new Map<Packer, ReadonlyMap<string, PackedPackage>>();

/**
 * The slow steps that wait on nothing but npm's tarballs, started together by the beforeAll
 * below once npm has packed, and awaited by the hooks and tests that read them: pnpm packs in
 * the workspace copy while npm installs npm's tarballs into one fresh project and then (from
 * the cache the first filled) into another, whose TypeScript consumer tsc checks next, and
 * while yarn installs them into a third. Each was a step of its own, one after the other.
 */
let pnpmPacked: Promise<unknown>;
let cliProject: Promise<NpmProject>;
let everyProject: Promise<NpmProject>;
/** What tsc printed checking the consumer in `everyProject` (see 'give a TypeScript consumer'). */
let consumerChecked: Promise<string>;
let yarnProject: Promise<YarnProject>;

/** `promise`, a rejection of which counts as handled until a hook or a test awaits it. */
function started<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

function packages(packer: Packer): ReadonlyMap<string, PackedPackage> {
  const packed = packedBy.get(packer);
  if (packed === undefined) throw new Error(`nothing packed by ${packer}`);
  return packed;
}

/** Every relative file target of an `exports` map, e.g. `./dist/index.js`. */
function exportTargets(exports: PackedPackage['manifest']['exports']): string[] {
  return Object.values(exports).flatMap((conditions) => Object.values(conditions));
}

/**
 * The npm cache of the projects below, kept from one run to the next for a day: a run fetches
 * from the public registry only what the day's first did not (a cold cache cost npm about 8 s
 * more CPU for the every-package install, and the downloads). The projects stay fresh; the
 * cache holds the public registry's packages only (the `@vesta` ones come from the tarballs and
 * the empty registry's 404s, which npm does not cache). Dated, so that what a run resolves
 * against is at most a day old despite --prefer-offline.
 */
const NPM_CACHE = join(
  tmpdir(),
  `vesta-packaging-npm-cache-${new Date().toISOString().slice(0, 10)}`,
);

/** A fresh npm project under the test's directory, sharing one npm cache with the others. */
function createProject(dir: string): Promise<NpmProject> {
  if (vestaRegistry === undefined) throw new Error('no registry for @vesta');
  return NpmProject.create(join(work, dir), {
    cacheDir: NPM_CACHE,
    vestaRegistry: vestaRegistry.url,
  });
}

/** `name` and the `@vesta` packages it depends on, transitively (peers left out). */
function runtimeClosure(packed: ReadonlyMap<string, PackedPackage>, name: string): Set<string> {
  const closure = new Set<string>();
  const pending = [name];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (closure.has(next)) continue;
    closure.add(next);
    const manifest = packed.get(next)?.manifest;
    pending.push(...Object.keys(manifest?.dependencies ?? {}).filter((dep) => packed.has(dep)));
  }
  return closure;
}

/** The CLI and the `@vesta` packages it needs, installed with npm from npm's tarballs. */
async function installCliAlone(): Promise<NpmProject> {
  const project = await createProject(join('npm', 'cli-project'));
  const closure = runtimeClosure(packages('npm'), '@vesta/cli');
  await project.install([...closure].map((name) => packages('npm').get(name)?.tarball ?? name));
  return project;
}

/** Every package, installed with npm from npm's tarballs. */
async function installEveryPackage(): Promise<NpmProject> {
  const project = await createProject(join('npm', 'project'));
  const tarballs = [...packages('npm').values()].map(({ tarball }) => tarball);
  // The declarations use Node's types, which a TypeScript user installs.
  await project.install([...tarballs, '@types/node@^20.19.0']);
  return project;
}

/**
 * Type-checks, in the project at `dir`, a consumer that imports every entry of every package,
 * with skipLibCheck off; returns what tsc printed (nothing when every declaration checks).
 */
async function checkConsumer(dir: string): Promise<string> {
  const entries = [...packages('npm').values()].flatMap(({ manifest }) =>
    Object.keys(manifest.exports).map((entry) => manifest.name + entry.slice(1)),
  );
  await writeFile(
    join(dir, 'consumer.mts'),
    [
      "import { createEmbeddedIdService } from '@vesta/embedded';",
      "import { VestaError } from '@vesta/core';",
      "import { buildProgram } from '@vesta/cli';",
      ...entries.map((entry, i) => `import type * as Entry${i} from '${entry}';`),
      'const ids = await createEmbeddedIdService({ machineId: 7 });',
      'const id: bigint = ids.genIdSync();',
      'const machine: number = ids.expId(id).machine;',
      '// @ts-expect-error machineId is a number: the declarations are real, not `any`',
      "await createEmbeddedIdService({ machineId: '7' });",
      `export type Entries = [${entries.map((_, i) => `typeof Entry${i}`).join(', ')}];`,
      'export { buildProgram, machine, VestaError };',
      '',
    ].join('\n'),
  );
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        // Every declaration file is checked, the packages' and those they import.
        skipLibCheck: false,
        types: ['node'],
      },
      files: ['consumer.mts'],
    }),
  );
  const checked = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: dir }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }),
  );
  return checked.stdout;
}

/**
 * npm's tarballs published to a registry of their own and added with yarn classic, the yarn
 * that `npm install yarn` gives, itself from the public registry like the rest.
 */
async function addWithYarn(): Promise<YarnProject> {
  yarnRegistry = await startTarballRegistry(packages('npm'));
  const tool = await createProject('yarn-tool');
  await tool.install([`yarn@${YARN}`]);
  const project = await YarnProject.create(join(work, 'yarn-project'), {
    yarn: join(tool.dir, 'node_modules/yarn/bin/yarn.js'),
    cacheDir: join(work, 'yarn-cache'),
    vestaRegistry: yarnRegistry.url,
  });
  const version = packages('npm').get('@vesta/cli')?.manifest.version;
  await project.add([`@vesta/cli@^${version}`, `@vesta/embedded@^${version}`]);
  return project;
}

/**
 * Packs every public package twice, with `npm pack` and with `pnpm pack` (each running the
 * packages' own prepack and postpack), from a copy of the workspace (see snapshotWorkspace),
 * from the dist/ that the integration project's global setup has just built; and starts the
 * installs of npm's tarballs as soon as they are there (see pnpmPacked).
 */
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'vesta-packaging-'));
  vestaRegistry = await startEmptyRegistry();
  const workspace = join(work, 'workspace');
  await snapshotWorkspace(ROOT, workspace);
  packedBy.set('npm', await packPublicPackages(workspace, 'npm', join(work, 'npm')));
  pnpmPacked = started(
    packPublicPackages(workspace, 'pnpm', join(work, 'pnpm')).then((packed) =>
      packedBy.set('pnpm', packed),
    ),
  );
  cliProject = started(installCliAlone());
  // After the CLI's install (one npm install at a time warms the cache), whatever its outcome:
  // a failed CLI install fails its own tests, not these.
  everyProject = started(cliProject.then(installEveryPackage, installEveryPackage));
  consumerChecked = started(everyProject.then((project) => checkConsumer(project.dir)));
  yarnProject = started(addWithYarn());
}, 600_000);

afterAll(async () => {
  // Nothing may still write under `work` (a step a failed hook left running) when it goes.
  await Promise.allSettled([pnpmPacked, consumerChecked, yarnProject]);
  await yarnRegistry?.close();
  await vestaRegistry?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/**
 * Imports the embedded service from ESM and requires it from CommonJS in the project at `dir`,
 * issuing an id each way from the installed package (not the workspace's).
 */
async function expectEmbeddedLoads(dir: string): Promise<void> {
  await writeFile(
    join(dir, 'esm.mjs'),
    [
      "import { createEmbeddedIdService } from '@vesta/embedded';",
      'const ids = await createEmbeddedIdService({ machineId: 7 });',
      'const id = ids.genIdSync();',
      "const resolved = import.meta.resolve('@vesta/embedded');",
      'console.log(JSON.stringify({ resolved, fields: ids.expId(id) }));',
      'await ids.close();',
    ].join('\n'),
  );
  await writeFile(
    join(dir, 'cjs.cjs'),
    [
      "const { createEmbeddedIdService } = require('@vesta/embedded');",
      'void (async () => {',
      '  const ids = await createEmbeddedIdService({ machineId: 8 });',
      '  const id = ids.genIdSync();',
      "  const resolved = require.resolve('@vesta/embedded');",
      '  console.log(JSON.stringify({ resolved, fields: ids.expId(id) }));',
      '  await ids.close();',
      '})();',
    ].join('\n'),
  );
  // No loader, no tsx: exactly what a user's Node does with the installed tarballs.
  for (const [file, machine] of [
    ['esm.mjs', 7],
    ['cjs.cjs', 8],
  ] as const) {
    const { stdout } = await run(process.execPath, [file], { cwd: dir });
    const issued = JSON.parse(stdout) as { resolved: string; fields: Record<string, number> };
    expect(issued.resolved, file).toMatch(/node_modules\/@vesta\/embedded\/dist\/index\.js$/);
    expect(issued.resolved, file).not.toContain(ROOT);
    expect(issued.fields, file).toMatchObject({ machine, genMethod: 0 });
  }
}

/** Runs `vesta --help` through the bin installed in the project at `dir`. */
async function expectVestaHelp(dir: string): Promise<void> {
  const { stdout } = await run(join(dir, 'node_modules/.bin/vesta'), ['--help'], { cwd: dir });
  expect(stdout).toMatch(/^Usage: vesta /);
  expect(stdout).toMatch(/\n\s+rest\b/);
}

describe.each(PACKERS)('the tarballs of %s pack', (packer) => {
  beforeAll(async () => {
    if (packer === 'pnpm') await pnpmPacked;
  }, 300_000);

  it('are one per package under packages/', async () => {
    const names = (await readdir(join(ROOT, 'packages'))).map((dir) => `@vesta/${dir}`);
    expect([...packages(packer).keys()].sort()).toEqual(names.sort());
  });

  it('ship compiled JavaScript, declarations, README and LICENSE, never sources or test files', () => {
    for (const [name, { files }] of packages(packer)) {
      for (const file of ['README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts']) {
        expect(files, name).toContain(file);
      }
      const stray = files.filter(
        (file) =>
          file.startsWith('src/') ||
          /\.spec\.|\/testing\/|__fixtures__|\.tsbuildinfo$|\.vesta-pack|(?<!\.d)\.ts$/.test(file),
      );
      expect(stray, name).toEqual([]);
    }
    // The server README links the protocol. swagger-ui's files and license come inside
    // @vesta/rest: no swagger-ui-dist, and so no @scarf/scarf install script, comes with it.
    expect(packages(packer).get('@vesta/server')?.files).toContain('PROTOCOL.md');
    const rest = packages(packer).get('@vesta/rest');
    for (const file of ['index.html', 'page.js', 'page.css', 'docs.html', 'docs.js']) {
      expect(rest?.files).toContain(`page/${file}`);
    }
    for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE']) {
      expect(rest?.files).toContain(`vendor/swagger-ui/${file}`);
    }
    expect(Object.keys(rest?.manifest.dependencies ?? {})).not.toContain('swagger-ui-dist');
  });

  it('point exports (types first), main, types and bin at files in the tarball', () => {
    for (const [name, { files, manifest }] of packages(packer)) {
      expect(Object.keys(manifest.exports['.'] ?? {}), name).toEqual(['types', 'default']);
      const targets = [
        ...exportTargets(manifest.exports),
        manifest.main,
        manifest.types,
        ...Object.values(manifest.bin ?? {}),
      ].filter((target) => target !== undefined);
      for (const target of targets) {
        expect(target, name).toMatch(/^\.\/dist\//);
        expect(files, `${name}: ${target}`).toContain(target.slice(2));
      }
    }
    expect(packages(packer).get('@vesta/cli')?.manifest.bin).toEqual({ vesta: './dist/bin.js' });
  });

  it('declare real versions, the metadata a registry shows, and nothing of the workspace', () => {
    for (const [name, { manifest }] of packages(packer)) {
      const dir = name.replace('@vesta/', 'packages/');
      expect(manifest, name).toMatchObject({
        license: 'Apache-2.0',
        engines: { node: '>=20.19' },
        repository: { type: 'git', url: REPOSITORY, directory: dir },
        homepage: `https://github.com/vesta-node/vesta-node/tree/main/${dir}#readme`,
        bugs: { url: 'https://github.com/vesta-node/vesta-node/issues' },
        publishConfig: { access: 'public' },
      });
      expect(manifest.scripts, name).toBeUndefined();
      expect(manifest.devDependencies, name).toBeUndefined();
      const ranges = {
        ...manifest.dependencies,
        ...manifest.peerDependencies,
        ...manifest.optionalDependencies,
      };
      for (const [dep, range] of Object.entries(ranges)) {
        expect(range, `${name} -> ${dep}`).not.toMatch(/^workspace:/);
        if (dep.startsWith('@vesta/')) {
          expect(packages(packer).has(dep), `${name} -> ${dep}`).toBe(true);
          expect(range, `${name} -> ${dep}`).toMatch(/^\^?0\.1\.0$/);
        }
      }
    }
    // A plain install of the CLI brings no coordinator client: each is an optional peer, loaded
    // only for a --coordinator of its scheme (PACKAGE_MISSING names it when absent).
    const cli = packages(packer).get('@vesta/cli')?.manifest;
    for (const name of [...Object.keys(COORDINATORS), '@vesta/grpc', '@vesta/segment']) {
      expect(Object.keys(cli?.dependencies ?? {})).not.toContain(name);
      expect(cli?.peerDependencies?.[name]).toMatch(/^\^\d+\.\d+\.\d+$/);
      expect(cli?.peerDependenciesMeta?.[name]).toEqual({ optional: true });
    }
  });

  it('declare every package that their JavaScript and declarations import', async () => {
    for (const [name, { dir, manifest }] of packages(packer)) {
      const declared = new Set([
        name,
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      const undeclared = [...(await bareImports(join(dir, 'dist')))].filter(
        (imported) => !declared.has(imported),
      );
      expect(undeclared, name).toEqual([]);
    }
  });
});

/**
 * Installed with npm: the tarballs npm packs. pnpm's are the same bytes (checked below, 'npm pack
 * and pnpm pack'), so installing them as well would test the same files twice.
 */
describe("npm pack's tarballs", () => {
  describe('the CLI installed alone with npm into a fresh project', () => {
    let project: NpmProject;

    beforeAll(async () => {
      project = await cliProject;
    }, 300_000);

    it('installs no coordinator package or client, and nothing with an install script', async () => {
      const installed = await project.installed();
      const names = installed.map(({ name }) => name);
      expect(names).toContain('@vesta/cli');
      for (const [coordinator, client] of Object.entries(COORDINATORS)) {
        expect(names).not.toContain(coordinator);
        expect(names).not.toContain(client);
      }
      expect(names).not.toContain('swagger-ui-dist');
      // gRPC is optional too (--grpc-port): neither it nor its protobufjs (a postinstall script).
      expect(names).not.toContain('@vesta/grpc');
      expect(names).not.toContain('@grpc/grpc-js');
      expect(names).not.toContain('@vesta/segment');
      const withScripts = installed.filter(
        ({ scripts, gyp }) => gyp || INSTALL_SCRIPTS.some((script) => script in scripts),
      );
      expect(withScripts.map(({ path }) => path)).toEqual([]);
    });

    it('imports the embedded service from ESM and requires it from CommonJS', async () => {
      await expectEmbeddedLoads(project.dir);
    });

    it('runs vesta --help through the installed bin', async () => {
      await expectVestaHelp(project.dir);
    });

    it.each([
      ['--coordinator', 'redis://127.0.0.1:9', '@vesta/redis'],
      ['--coordinator', 'etcd://127.0.0.1:9', '@vesta/etcd'],
      ['--coordinator', 'zookeeper://127.0.0.1:9', '@vesta/zookeeper'],
    ])(
      'refuses vesta rest %s %s with PACKAGE_MISSING, naming the npm install',
      async (flag, value, missing) => {
        const bin = join(project.dir, 'node_modules/.bin/vesta');
        const stateDir = join(work, 'npm', 'refused-state');
        const args = ['rest', '--port', '0', flag, value, '--state-dir', stateDir];
        const refused = await runToExit(bin, args, project.dir);
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain('PACKAGE_MISSING');
        expect(refused.stderr).toContain(`npm install ${missing}`);
      },
    );

    it('refuses vesta server --grpc-port with PACKAGE_MISSING, naming the npm install', async () => {
      const bin = join(project.dir, 'node_modules/.bin/vesta');
      const args = ['server', '--port', '0', '--grpc-port', '0', '--no-state-dir'];
      const refused = await runToExit(bin, args, project.dir);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('PACKAGE_MISSING');
      expect(refused.stderr).toContain('npm install @vesta/grpc');
    });

    it('starts vesta rest, which answers /genid with an id the bin decodes, then stops', async () => {
      const bin = join(project.dir, 'node_modules/.bin/vesta');
      const stateDir = join(work, 'npm', 'rest-state');
      const rest = spawnVesta(
        'rest',
        ['--port', '0', '--machine-id', '1003', '--state-dir', stateDir],
        { cli: [bin] },
      );
      try {
        const port = await rest.listening;
        const response = await fetch(`http://127.0.0.1:${port}/genid`);
        expect(response.status).toBe(200);
        const { id } = (await response.json()) as { id: string };
        const { stdout } = await run(bin, ['decode', id], { cwd: project.dir });
        expect(JSON.parse(stdout)).toMatchObject({ id, machine: 1003, genMethod: 2 });
      } finally {
        expect(await rest.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      }
    });
  });

  describe('every package installed with npm into a fresh project', () => {
    let project: NpmProject;

    beforeAll(async () => {
      project = await everyProject;
    }, 300_000);

    it('loads every package in plain Node', async () => {
      const script = `
        for (const name of ${JSON.stringify([...packages('npm').keys()])}) await import(name);
        console.log('loaded');
      `;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
        cwd: project.dir,
      });
      expect(stdout.trim()).toBe('loaded');
    });

    it("serves the REST server's id page and swagger-ui's files from the install", async () => {
      const script = `
        import { silentLogger } from '@vesta/core';
        import { startRestServer } from '@vesta/rest';
        const server = await startRestServer({ machineId: 1000, port: 0, stateDir: false, logger: silentLogger });
        const statuses = {};
        for (const path of ['/', '/docs', '/assets/page.js', '/assets/swagger-ui-bundle.js', '/assets/swagger-ui.css']) {
          statuses[path] = (await fetch(server.url + path)).status;
        }
        await server.close();
        console.log(JSON.stringify(statuses));
      `;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
        cwd: project.dir,
      });
      expect(JSON.parse(stdout)).toEqual({
        '/': 200,
        '/docs': 200,
        '/assets/page.js': 200,
        '/assets/swagger-ui-bundle.js': 200,
        '/assets/swagger-ui.css': 200,
      });
    });

    it('give a TypeScript consumer declarations that check with skipLibCheck off', async () => {
      // Checked since the install ended, beside the tests before this one (checkConsumer). The
      // bound is the install's (a type check of every package's declarations: over a minute of
      // tsc on a loaded 2-core machine), not a speed the test asserts.
      expect(await consumerChecked).toBe('');
    }, 300_000);
  });
});

describe('the tarballs npm packs, published to a registry and installed with yarn into a fresh project', () => {
  let project: YarnProject;

  beforeAll(async () => {
    project = await yarnProject;
  }, 300_000);

  it('imports the embedded service from ESM and requires it from CommonJS', async () => {
    await expectEmbeddedLoads(project.dir);
  });

  it('runs vesta --help through the installed bin', async () => {
    await expectVestaHelp(project.dir);
  });
});

describe('npm pack and pnpm pack', () => {
  beforeAll(async () => {
    await pnpmPacked;
  }, 300_000);

  it('make the same tarballs: the same manifest and the same files, byte for byte, for every package', async () => {
    for (const [name, npm] of packages('npm')) {
      const pnpm = packages('pnpm').get(name);
      if (pnpm === undefined) throw new Error(`pnpm packed no ${name}`);
      expect(pnpm.manifest, name).toEqual(npm.manifest);
      expect([...pnpm.files].sort(), name).toEqual([...npm.files].sort());
      // package.json is the same manifest (above), each packer writing it in its own layout.
      for (const file of npm.files.filter((path) => path !== 'package.json')) {
        const [ours, theirs] = await Promise.all([
          readFile(join(npm.dir, file)),
          readFile(join(pnpm.dir, file)),
        ]);
        expect(theirs.equals(ours), `${name}: ${file}`).toBe(true);
      }
    }
  });

  it('leave the workspace manifests as they were, and npm publish in a package is refused', async () => {
    const dir = join(work, 'workspace/packages/core');
    const before = await readFile(join(dir, 'package.json'), 'utf8');
    expect(before).toBe(await readFile(join(ROOT, 'packages/core/package.json'), 'utf8'));
    // --dry-run: were the guard gone, nothing would reach the registry.
    const refused = await run('npm', ['publish', '--dry-run'], {
      cwd: dir,
      env: withoutNpmConfig(),
    }).then(
      () => undefined,
      (error: { stderr?: string }) => error,
    );
    expect(refused?.stderr).toContain('publish with `pnpm publish`');
    expect(await readFile(join(dir, 'package.json'), 'utf8')).toBe(before);
  });
});
