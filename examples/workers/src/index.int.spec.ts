import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const cwd = fileURLToPath(new URL('..', import.meta.url));

describe('the workers example', () => {
  it('has 4 worker threads issue ids on one shared state and finds no duplicate', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
      cwd,
      env: { ...process.env, IDS_PER_WORKER: '100000' },
    });
    expect(stdout).toContain('4 workers issued 400000 ids under machine 8');
    expect(stdout).toMatch(/^no duplicate$/m);
    const [, first = '', last = ''] = stdout.match(/^first (\d+), last (\d+)$/m) ?? [];
    expect(Number(BigInt(first) & 1023n)).toBe(8);
    expect(BigInt(last) > BigInt(first)).toBe(true);
  });
});
