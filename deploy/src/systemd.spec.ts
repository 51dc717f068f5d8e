import { execFile, execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const UNIT = resolve(import.meta.dirname, '../systemd/vesta-rest.service');
/** The unit's ExecStart program, where `npm install --prefix /opt/vesta @vesta/cli` puts it. */
const EXEC_START = '/opt/vesta/node_modules/.bin/vesta';
/** systemd's own units (sysinit.target and the rest a service depends on by default). */
const SYSTEM_UNITS = '/usr/lib/systemd/system';

function hasSystemdAnalyze(): boolean {
  try {
    execFileSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const roots: string[] = [];

afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

/**
 * `systemd-analyze verify` of `unit` installed in a root of its own, as
 * /etc/systemd/system/vesta-rest.service beside this machine's system units and a stand-in for
 * the vesta program (so the check that ExecStart exists runs against the documented path, not
 * against whatever this machine has installed). Resolves with everything it printed.
 */
async function verify(unit: string, options: { program?: boolean } = {}): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'vesta-systemd-'));
  roots.push(root);
  await cp(SYSTEM_UNITS, join(root, SYSTEM_UNITS), { recursive: true, verbatimSymlinks: true });
  await mkdir(join(root, 'etc/systemd/system'), { recursive: true });
  await writeFile(join(root, 'etc/systemd/system/vesta-rest.service'), unit);
  if (options.program !== false) {
    await mkdir(join(root, EXEC_START, '..'), { recursive: true });
    await writeFile(join(root, EXEC_START), '#!/bin/sh\n');
    await chmod(join(root, EXEC_START), 0o755);
  }
  try {
    const { stdout, stderr } = await run('systemd-analyze', [
      'verify',
      `--root=${root}`,
      'vesta-rest.service',
    ]);
    return stdout + stderr;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    return `exit non-zero\n${stdout ?? ''}${stderr ?? ''}`;
  }
}

/** The unit's settings of one section, `key` to every value given (a key may repeat). */
function settings(unit: string, section: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let current = '';
  for (const raw of unit.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) current = line;
    else if (current === `[${section}]` && line !== '' && !line.startsWith('#')) {
      const at = line.indexOf('=');
      const key = line.slice(0, at);
      found.set(key, [...(found.get(key) ?? []), line.slice(at + 1)]);
    }
  }
  return found;
}

describe('deploy/systemd/vesta-rest.service', () => {
  it('runs vesta rest with its state dir under /var/lib, restarted on failure', async () => {
    const service = settings(await readFile(UNIT, 'utf8'), 'Service');
    expect(service.get('ExecStart')).toEqual([`${EXEC_START} rest`]);
    expect(service.get('StateDirectory')).toEqual(['vesta']);
    // %S is /var/lib for a system service.
    expect(service.get('Environment')).toContain('VESTA_STATE_DIR=%S/vesta');
    expect(service.get('Environment')).toContain('VESTA_HOST_MARKS_DIR=%t/vesta');
    expect(service.get('RuntimeDirectoryMode')).toEqual(['0700']);
    expect(service.get('Restart')).toEqual(['on-failure']);
    expect(service.get('DynamicUser')).toEqual(['yes']);
  });

  it.skipIf(!hasSystemdAnalyze())(
    'passes systemd-analyze verify without a warning (skipped where systemd-analyze is missing)',
    async () => {
      expect(await verify(await readFile(UNIT, 'utf8'))).toBe('');
    },
  );

  it.skipIf(!hasSystemdAnalyze())(
    'is refused by systemd-analyze verify with a misspelt key or without its program, so the check bites',
    async () => {
      const unit = await readFile(UNIT, 'utf8');
      expect(await verify(unit.replace('NoNewPrivileges=', 'NoNewPrivilege='))).toMatch(
        /Unknown key 'NoNewPrivilege'/,
      );
      expect(await verify(unit, { program: false })).toMatch(
        /Command \/opt\/vesta\/node_modules\/\.bin\/vesta is not executable/,
      );
    },
  );

  it.skipIf(!hasSystemdAnalyze())(
    'is rated OK (exposure 2.0 or less) by systemd-analyze security (skipped without it)',
    async () => {
      const { stdout } = await run('systemd-analyze', [
        'security',
        '--offline=yes',
        '--threshold=20',
        '--no-pager',
        UNIT,
      ]);
      expect(stdout).toMatch(/Overall exposure level for vesta-rest\.service: [0-2]\.\d OK/);
    },
  );
});
