import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostMarksDir, hostMarksRoot } from './hostMarksDir.js';

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
    expect(hostMarksRoot({ env, uid, platform })).toBe(expected);
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
