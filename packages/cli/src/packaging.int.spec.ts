import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../../..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

interface PackedPackage {
  readonly name: string;
  readonly tarball: string;
  readonly files: readonly string[];
  readonly manifest: {
    readonly exports: Record<string, Record<string, string>>;
    readonly main?: string;
    readonly types?: string;
    readonly bin?: Record<string, string>;
    readonly dependencies?: Record<string, string>;
    readonly peerDependencies?: Record<string, string>;
    readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };
}

let work: string;
let project: string;
const packed = new Map<string, PackedPackage>();

/** Where a workspace package lives: `@vesta/core` -> packages/core. */
function workspaceDir(name: string): string {
  return join(ROOT, 'packages', name.replace('@vesta/', ''));
}

/** Every relative file target of an `exports` map, e.g. `./dist/index.js`. */
function exportTargets(exports: PackedPackage['manifest']['exports']): string[] {
  return Object.values(exports).flatMap((conditions) => Object.values(conditions));
}

/**
 * Packs every publishable package the way `pnpm publish` would (publishConfig applied,
 * `workspace:*` rewritten, prepack building dist/), then installs the tarballs into a
 * project outside the workspace. Third-party dependencies are linked from the workspace's
 * locked install instead of fetched, so the test stays offline and fast; only the ones each
 * tarball declares are linked, so an undeclared import still fails as it would for a user.
 */
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'vesta-packaging-'));
  const tarballs = join(work, 'tarballs');
  project = join(work, 'project');
  await mkdir(tarballs);
  await mkdir(join(project, 'node_modules/@vesta'), { recursive: true });
  await mkdir(join(project, 'node_modules/@types'), { recursive: true });

  // A fresh clone has no dist/: build first (incremental, so cheap after `npm test`'s build).
  await run(process.execPath, [TSC, '-b', 'tsconfig.build.json'], { cwd: ROOT });
  await run(
    'sh',
    ['scripts/pnpm.sh', '-r', '--filter', './packages/*', 'pack', '--pack-destination', tarballs],
    { cwd: ROOT },
  );

  for (const file of await readdir(tarballs)) {
    const tarball = join(tarballs, file);
    const { stdout: listing } = await run('tar', ['-tzf', tarball]);
    const files = listing
      .split('\n')
      .filter(Boolean)
      .map((path) => path.replace(/^package\//, ''));
    const { stdout: json } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
    const manifest = JSON.parse(json) as PackedPackage['manifest'] & { name: string };
    packed.set(manifest.name, { name: manifest.name, tarball, files, manifest });

    const dir = join(project, 'node_modules', manifest.name);
    await mkdir(dir, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
  }

  for (const { name, manifest } of packed.values()) {
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      if (dep.startsWith('@vesta/')) continue;
      const link = join(project, 'node_modules', dep);
      await mkdir(join(link, '..'), { recursive: true });
      await symlink(await realpath(join(workspaceDir(name), 'node_modules', dep)), link).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        },
      );
    }
  }
  await symlink(
    await realpath(join(ROOT, 'node_modules/@types/node')),
    join(project, 'node_modules/@types/node'),
  );
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the published packages', () => {
  it('packs every package under packages/', async () => {
    const names = (await readdir(join(ROOT, 'packages'))).map((dir) => `@vesta/${dir}`);
    expect([...packed.keys()].sort()).toEqual(names.sort());
  });

  it('ship compiled JavaScript, declarations and the README, never sources or test files', () => {
    for (const { name, files } of packed.values()) {
      expect(files, name).toContain('README.md');
      expect(files, name).toContain('dist/index.js');
      expect(files, name).toContain('dist/index.d.ts');
      const stray = files.filter(
        (file) =>
          file.startsWith('src/') ||
          /\.spec\.|\/testing\/|__fixtures__|\.tsbuildinfo$|(?<!\.d)\.ts$/.test(file),
      );
      expect(stray, name).toEqual([]);
    }
  });

  it('point exports (types first), main, types and bin at files in the tarball', () => {
    for (const { name, files, manifest } of packed.values()) {
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
      for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) {
        expect(range, `${name} -> ${dep}`).not.toMatch(/^workspace:/);
        if (dep.startsWith('@vesta/')) expect(packed.has(dep), `${name} -> ${dep}`).toBe(true);
      }
    }
    const cli = packed.get('@vesta/cli')?.manifest;
    expect(cli?.bin).toEqual({ vesta: './dist/bin.js' });
    // A plain install of the CLI brings no coordinator client: each is an optional peer, loaded
    // only for a --coordinator of its scheme (PACKAGE_MISSING names it when absent).
    const coordinators = ['@vesta/etcd', '@vesta/postgres', '@vesta/redis', '@vesta/zookeeper'];
    for (const name of coordinators) {
      expect(Object.keys(cli?.dependencies ?? {})).not.toContain(name);
      expect(cli?.peerDependencies?.[name]).toMatch(/^\^\d+\.\d+\.\d+$/);
      expect(cli?.peerDependenciesMeta?.[name]).toEqual({ optional: true });
    }
  });

  it('issue and decode an id in plain Node, and the vesta bin decodes it the same', async () => {
    const script = `
      import { createEmbeddedIdService } from '@vesta/embedded';
      for (const name of ['core', 'metrics', 'rest', 'server', 'zookeeper', 'redis', 'postgres', 'etcd', 'cli']) {
        await import('@vesta/' + name);
      }
      const ids = await createEmbeddedIdService({ machineId: 7 });
      const id = ids.genIdSync();
      console.log(JSON.stringify({
        resolved: import.meta.resolve('@vesta/embedded'),
        id: String(id),
        fields: ids.expId(id),
      }));
      await ids.close();
    `;
    // No loader, no tsx: exactly what a user's Node 20 does with the installed tarballs.
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: project,
    });
    const issued = JSON.parse(stdout) as {
      resolved: string;
      id: string;
      fields: Record<string, number>;
    };
    expect(issued.resolved).toMatch(/\/node_modules\/@vesta\/embedded\/dist\/index\.js$/);
    expect(issued.resolved).not.toContain(ROOT);
    expect(issued.fields).toMatchObject({ machine: 7, genMethod: 0 });

    // Run through its shebang: the bin is executable as packed.
    const bin = join(project, 'node_modules/@vesta/cli/dist/bin.js');
    const { stdout: decoded } = await run(bin, ['decode', issued.id], { cwd: project });
    expect(JSON.parse(decoded)).toMatchObject({ id: issued.id, ...issued.fields });
  });

  it("ship the REST server's id page and serve it, with swagger-ui's files, from the install", async () => {
    const files = packed.get('@vesta/rest')?.files ?? [];
    for (const file of ['index.html', 'page.js', 'page.css', 'docs.html', 'docs.js']) {
      expect(files).toContain(`page/${file}`);
    }
    // swagger-ui's two files and its license come inside the package: no swagger-ui-dist, and so
    // no @scarf/scarf install script, comes with an install.
    for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE']) {
      expect(files).toContain(`vendor/swagger-ui/${file}`);
    }
    expect(Object.keys(packed.get('@vesta/rest')?.manifest.dependencies ?? {})).not.toContain(
      'swagger-ui-dist',
    );
    expect(existsSync(join(project, 'node_modules/swagger-ui-dist'))).toBe(false);
    const script = `
      import { silentLogger } from '@vesta/core';
      import { startRestServer } from '@vesta/rest';
      const server = await startRestServer({ machineId: 1000, port: 0, stateDir: false, logger: silentLogger });
      const statuses = {};
      for (const path of ['/', '/docs', '/assets/page.js', '/assets/swagger-ui-bundle.js']) {
        statuses[path] = (await fetch(server.url + path)).status;
      }
      await server.close();
      console.log(JSON.stringify(statuses));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: project,
    });
    expect(JSON.parse(stdout)).toEqual({
      '/': 200,
      '/docs': 200,
      '/assets/page.js': 200,
      '/assets/swagger-ui-bundle.js': 200,
    });
  });

  it('give a TypeScript consumer the declarations', async () => {
    await writeFile(
      join(project, 'consumer.ts'),
      [
        "import { createEmbeddedIdService } from '@vesta/embedded';",
        "import { VestaError } from '@vesta/core';",
        "import { buildProgram } from '@vesta/cli';",
        'const ids = await createEmbeddedIdService({ machineId: 7 });',
        'const id: bigint = ids.genIdSync();',
        'const machine: number = ids.expId(id).machine;',
        '// @ts-expect-error machineId is a number: the declarations are real, not `any`',
        "await createEmbeddedIdService({ machineId: '7' });",
        'export { buildProgram, machine, VestaError };',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    await expect(
      run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project }),
    ).resolves.toBeDefined();
  });
});
