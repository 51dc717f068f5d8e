import { chmodSync, chownSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostMarksDir, hostMarksRoot } from './FileTimeMarkStore.js';

describe('hostMarksRoot', () => {
  it.each([
    [
      'the configured directory first',
      { VESTA_HOST_MARKS_DIR: '/srv/marks', XDG_RUNTIME_DIR: '/run/user/0' },
      0,
      'linux',
      '/srv/marks',
    ],
    [
      '/run/vesta for root on Linux, ahead of a runtime dir',
      { XDG_RUNTIME_DIR: '/run/user/0' },
      0,
      'linux',
      '/run/vesta',
    ],
    [
      "the user's runtime dir",
      { XDG_RUNTIME_DIR: '/run/user/1000' },
      1000,
      'linux',
      '/run/user/1000/vesta',
    ],
    [
      'the temp dir when the runtime dir is relative',
      { XDG_RUNTIME_DIR: 'run' },
      1000,
      'linux',
      join(tmpdir(), 'vesta-host-marks-1000'),
    ],
    [
      'the temp dir when nothing else is there',
      {},
      1000,
      'darwin',
      join(tmpdir(), 'vesta-host-marks-1000'),
    ],
    [
      'the temp dir for root where there is no /run',
      {},
      0,
      'darwin',
      join(tmpdir(), 'vesta-host-marks-0'),
    ],
    [
      'an empty variable as unset',
      { VESTA_HOST_MARKS_DIR: '' },
      1000,
      'linux',
      join(tmpdir(), 'vesta-host-marks-1000'),
    ],
  ] as const)('picks %s', (_what, env, uid, platform, expected) => {
    expect(hostMarksRoot({ env, uid, platform, runtimeDirProblem: () => undefined })).toBe(
      expected,
    );
  });

  describe("checks $XDG_RUNTIME_DIR with lstat: this user's, and no one else may write it", () => {
    const uid = process.getuid?.();
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'vesta-runtime-'));
      chmodSync(dir, 0o700);
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /** The root picked with `runtime` as the runtime dir (not root's /run/vesta), and the warnings. */
    function picked(runtime: string): { root: string; warnings: string[] } {
      const warnings: string[] = [];
      const logger = {
        info: () => undefined,
        error: () => undefined,
        warn: (_fields: unknown, message?: string) => void warnings.push(message ?? ''),
      };
      const root = hostMarksRoot(
        { env: { XDG_RUNTIME_DIR: runtime }, uid, platform: 'darwin' },
        logger,
      );
      return { root, warnings };
    }

    const FALLBACK = join(tmpdir(), `vesta-host-marks-${String(uid)}`);

    it('uses a directory of its own, mode 0700', () => {
      expect(picked(dir)).toEqual({ root: join(dir, 'vesta'), warnings: [] });
    });

    it.each([
      [
        'open to others (0777)',
        () => chmodSync(dir, 0o777),
        'is writable by other users (mode 0777)',
      ],
      ['writable by its group (0770)', () => chmodSync(dir, 0o770), 'mode 0770'],
      ['missing', () => rmSync(dir, { recursive: true }), 'cannot be examined (ENOENT)'],
    ])(
      'falls back to the temp dir, with a warning, from a runtime dir %s',
      (_what, make, problem) => {
        make();
        const { root, warnings } = picked(dir);
        expect(root).toBe(FALLBACK);
        expect(warnings).toEqual([expect.stringContaining(problem)]);
      },
    );

    it('falls back from a symbolic link to a directory of its own', () => {
      const link = `${dir}-link`;
      symlinkSync(dir, link);
      try {
        expect(picked(link).warnings).toEqual([expect.stringContaining('is a symbolic link')]);
      } finally {
        rmSync(link);
      }
    });

    it.runIf(uid === 0)(
      "falls back from another user's runtime dir (su without -): owned by nobody",
      () => {
        chownSync(dir, 65534, 65534);
        expect(picked(dir)).toEqual({
          root: FALLBACK,
          warnings: [expect.stringContaining('is owned by uid 65534, not by this process')],
        });
      },
    );
  });
});

describe('hostMarksDir', () => {
  it('gives each host-lock scope a directory of its own under the root', () => {
    const a = hostMarksDir('/run/vesta', 'default');
    expect(a).toMatch(/^\/run\/vesta\/[0-9a-f]{16}$/);
    expect(hostMarksDir('/run/vesta', 'default')).toBe(a);
    expect(hostMarksDir('/run/vesta', 'other')).not.toBe(a);
  });
});
