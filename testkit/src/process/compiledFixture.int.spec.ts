import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runToExit } from '../runToExit.js';
import { compiledFixture, FIXTURE_EXEC_ARGV } from './compiledFixture.js';

const FIXTURE = new URL('./__fixtures__/moduleCopies.ts', import.meta.url);

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
});
