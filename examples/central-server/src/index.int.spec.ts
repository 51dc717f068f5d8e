import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { compiledFixture, FIXTURE_EXEC_ARGV } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';

const SCRIPT = new URL('./index.ts', import.meta.url);

describe('central-server example', () => {
  it('issues ids from two servers, survives one closing and falls back when both are gone', async () => {
    // Compiled and run by plain Node, the packages from their dist/ (as installed).
    const script = await compiledFixture(SCRIPT);
    const { stdout } = await promisify(execFile)(process.execPath, [...FIXTURE_EXEC_ARGV, script], {
      timeout: 60_000,
    });
    expect(stdout).toMatch(/^genId: \d+$/m);
    expect(stdout).toMatch(/^machines: 1001, 1002$/m);
    expect(stdout).toMatch(/^after closing .*: machines 1002$/m);
    expect(stdout).toMatch(/^both closed: genMethod 0, machine 17$/m);
    expect(stdout).toMatch(/^done$/m);
  });
});
