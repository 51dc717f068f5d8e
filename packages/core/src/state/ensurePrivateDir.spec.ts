import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir } from './FileTimeMarkStore.js';
import { caught } from '@vesta/testkit';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vesta-private-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('ensurePrivateDir', () => {
  it('creates a missing directory, and its parents, with mode 0700', () => {
    const path = join(dir, 'a', 'b');
    ensurePrivateDir(path, 'fix it');
    expect(statSync(path).mode & 0o777).toBe(0o700);
    ensurePrivateDir(path, 'fix it');
  });

  it.each([
    [
      'a directory open to others',
      (path: string) => {
        mkdirSync(path);
        chmodSync(path, 0o777);
      },
      'is open to other users (mode 0777',
    ],
    [
      'a group-readable directory',
      (path: string) => {
        mkdirSync(path);
        chmodSync(path, 0o750);
      },
      'mode 0750',
    ],
    [
      'a symbolic link to a private directory',
      (path: string) => {
        mkdirSync(join(dir, 'elsewhere'), { mode: 0o700 });
        symlinkSync(join(dir, 'elsewhere'), path);
      },
      'is a symbolic link',
    ],
    ['a file', (path: string) => writeFileSync(path, ''), 'is not a directory'],
  ])('refuses %s with STATE_DIR_UNSAFE naming the path and the fix', (_what, plant, problem) => {
    const path = join(dir, 'marks');
    plant(path);
    const error = caught(() => ensurePrivateDir(path, 'set VESTA_HOST_MARKS_DIR'));
    expect(error).toMatchObject({ code: 'STATE_DIR_UNSAFE', details: { path } });
    expect(error.message).toContain(path);
    expect(error.message).toContain(problem);
    expect(error.message).toContain('set VESTA_HOST_MARKS_DIR');
  });

  it('writes nothing through a refused link', () => {
    mkdirSync(join(dir, 'target'), { mode: 0o700 });
    symlinkSync(join(dir, 'target'), join(dir, 'marks'));
    caught(() => ensurePrivateDir(join(dir, 'marks'), 'fix'));
    expect(readdirSync(join(dir, 'target'))).toEqual([]);
  });
});
