import { copyFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runToExit } from '../runToExit.js';
import { compiledFixture, compiledFixtures, FIXTURE_EXEC_ARGV } from './compiledFixture.js';
import { tempDir } from './tempDir.js';

const FIXTURE = new URL('./__fixtures__/moduleCopies.ts', import.meta.url);
const IMPORTER = new URL('./__fixtures__/importsModule.ts', import.meta.url);
const IMPORTED = new URL('./__fixtures__/exportsVestaError.ts', import.meta.url);
const OWN_LOCATION = new URL('./__fixtures__/printsOwnLocation.ts', import.meta.url);

/** Runs the bundle `script` with `args` under plain Node and parses what it printed. */
async function printed(script: string, ...args: string[]): Promise<unknown> {
  const run = await runToExit(
    process.execPath,
    [...FIXTURE_EXEC_ARGV, script, ...args],
    process.cwd(),
  );
  expect(run, run.stderr).toMatchObject({ code: 0, signal: null });
  return JSON.parse(run.stdout);
}

describe('compiledFixture', () => {
  it('writes the bundle beside the source, runs it from there, and loads package sources from dist/ (one copy of each module)', async () => {
    const source = fileURLToPath(FIXTURE);
    const bundle = await compiledFixture(FIXTURE);
    expect(bundle).toBe(source.replace(/\.ts$/, '.fixture.mjs'));
    // Once per test file: the same bundle, not a second build.
    expect(compiledFixture(source)).toBe(compiledFixture(FIXTURE));

    const run = await runToExit(process.execPath, [...FIXTURE_EXEC_ARGV, bundle], process.cwd());
    expect(run, run.stderr).toMatchObject({ code: 0, signal: null });
    expect(JSON.parse(run.stdout)).toEqual({ dirname: dirname(source), oneVestaError: true });
  });

  it('bundles the packages whole: the bundle runs from a folder where no package can be found', async () => {
    const dir = tempDir('vesta-fixture-');
    try {
      const alone = join(dir, 'moduleCopies.mjs');
      await copyFile(await compiledFixture(FIXTURE), alone);
      expect(await printed(alone)).toEqual({ dirname: dir, oneVestaError: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives each bundled JavaScript module its own import.meta.dirname and filename, wherever the bundle runs', async () => {
    const dir = tempDir('vesta-fixture-');
    try {
      const alone = join(dir, 'printsOwnLocation.mjs');
      await copyFile(await compiledFixture(OWN_LOCATION), alone);
      const module = fileURLToPath(new URL('./__fixtures__/ownLocation.js', import.meta.url));
      expect(await printed(alone)).toEqual({ dirname: dirname(module), filename: module });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('compiledFixtures', () => {
  it('compiles fixtures that one process loads together with one copy of each module, where bundles compiled apart hold one each', async () => {
    const bundles = await compiledFixtures([IMPORTER, IMPORTED]);
    expect(bundles).toHaveLength(2);
    const [importer = '', imported = ''] = bundles;
    // Beside their sources, named by their set: the same source in another set imports other
    // shared modules.
    expect(importer).toMatch(/[/\\]importsModule\.[0-9a-f]{8}\.fixture\.mjs$/);
    expect(dirname(importer)).toBe(dirname(fileURLToPath(IMPORTER)));
    expect(imported).toMatch(/[/\\]exportsVestaError\.[0-9a-f]{8}\.fixture\.mjs$/);
    expect(compiledFixtures([IMPORTER, IMPORTED])).toBe(compiledFixtures([IMPORTER, IMPORTED]));

    expect(await printed(importer, pathToFileURL(imported).href)).toEqual({ oneVestaError: true });
    // Compiled apart, each bundle holds its own @vesta/core.
    const apart = await Promise.all([compiledFixture(IMPORTER), compiledFixture(IMPORTED)]);
    expect(await printed(apart[0], pathToFileURL(apart[1]).href)).toEqual({
      oneVestaError: false,
    });
  });
});
