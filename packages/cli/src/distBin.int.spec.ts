import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runToExit, tempDir } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { spawnVesta } from './testing/spawnVesta.js';

const ROOT = resolve(import.meta.dirname, '../../..');
/** The bin `npm run build` writes, run as a contributor runs it: plain `node`, no flag. */
const DIST_BIN = join(ROOT, 'packages/cli/dist/bin.js');

describe('the compiled vesta bin in the workspace, run by plain node', () => {
  it('decodes an id (it loads @vesta/core from dist/, not its TypeScript source)', async () => {
    const decoded = await runToExit(process.execPath, [DIST_BIN, 'decode', '1'], ROOT);
    expect(decoded.stderr).toBe('');
    expect(JSON.parse(decoded.stdout)).toMatchObject({ id: '1', machine: 1 });
    const help = await runToExit(process.execPath, [DIST_BIN, '--help'], ROOT);
    expect(help.stdout).toContain('Usage: vesta');
  });

  it('starts vesta rest, which answers /genid, then stops on SIGTERM with 0', async () => {
    const dir = tempDir('vesta-dist-bin-');
    const rest = spawnVesta(
      'rest',
      ['--host', '127.0.0.1', '--port', '0', '--machine-id', '1009', '--state-dir', dir],
      { cli: [process.execPath, DIST_BIN], env: { NODE_OPTIONS: '' } },
    );
    try {
      const port = await rest.listening;
      const response = await fetch(`http://127.0.0.1:${port}/genid`);
      expect(response.status).toBe(200);
      expect((await response.json()) as { id: string }).toMatchObject({ id: expect.any(String) });
    } finally {
      expect(await rest.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      await rm(dir, { recursive: true, force: true });
    }
  });
});
