import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./index.ts', import.meta.url));

describe('central-server example', () => {
  it('issues ids from two servers, survives one closing and falls back when both are gone', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', SCRIPT], {
      timeout: 60_000,
    });
    expect(stdout).toMatch(/^genId: \d+$/m);
    expect(stdout).toMatch(/^machines: 1001, 1002$/m);
    expect(stdout).toMatch(/^after closing .*: machines 1002$/m);
    expect(stdout).toMatch(/^both closed: genMethod 0, machine 17$/m);
    expect(stdout).toMatch(/^done$/m);
  });
});
