import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToExit, VESTA_CLI } from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnVesta } from '../testing/spawnVesta.js';

const ROOT = join(import.meta.dirname, '../../../..');
/** The mark file the first release of `vesta server` wrote for machine id 1002. */
const LEGACY = 'time-mark-g1-t0-m1002.json';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-cli-legacy-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A state dir holding a first-release mark a little in the past. */
async function firstReleaseStateDir(name: string): Promise<string> {
  const stateDir = join(dir, name);
  await mkdir(stateDir, { mode: 0o700 });
  const markMs = Date.now() - 60_000;
  await writeFile(
    join(stateDir, LEGACY),
    JSON.stringify({
      markMs,
      mark: new Date(markMs).toISOString(),
      genMethod: 1,
      type: 0,
      machineId: 1002,
    }),
  );
  return stateDir;
}

describe('vesta server on a state dir of the first release', () => {
  it('refuses to start with STATE_MISMATCH naming --adopt-legacy-mark', async () => {
    const stateDir = await firstReleaseStateDir('refused');
    const result = await runToExit(
      process.execPath,
      [...VESTA_CLI, 'server', '--port', '0', '--machine-id', '1002', '--state-dir', stateDir],
      ROOT,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('STATE_MISMATCH');
    expect(result.stderr).toContain('--adopt-legacy-mark');
    expect(await readdir(stateDir)).toEqual([LEGACY]);
  });

  it('starts with --adopt-legacy-mark <epoch> and rewrites the file in the current format', async () => {
    const stateDir = await firstReleaseStateDir('adopted');
    const server = spawnVesta('server', [
      '--port',
      '0',
      '--machine-id',
      '1002',
      '--state-dir',
      stateDir,
      '--adopt-legacy-mark',
      '2025-01-01',
    ]);
    await server.listening;
    const files = await readdir(stateDir);
    expect(files).not.toContain(LEGACY);
    expect(files).toEqual([expect.stringMatching(/^time-mark-g1-t0-m1002-[0-9a-f]{12}\.json$/)]);
    expect(await server.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });
});
