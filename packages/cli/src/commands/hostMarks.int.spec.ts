import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnVesta, type VestaExit, type VestaProcess } from '../testing/spawnVesta.js';

/**
 * The host marks of a real `vesta rest` against files a root or another local user planted, and
 * against a `$XDG_RUNTIME_DIR` that is not the service's user's. The test runs as root (as CI
 * does) to plant root's files and to start the service as a second OS user, `nobody`.
 */
const NOBODY = { uid: 65534, gid: 65534 };
const asRoot = process.getuid?.() === 0;
/** How long a refused start may take to exit (a loaded 2-core machine); a hang fails the test. */
const EXIT_DEADLINE_MS = 30_000;

let shared: string;
const running: VestaProcess[] = [];

beforeEach(() => {
  // A shared, sticky directory like /tmp, where any user may create names.
  shared = mkdtempSync(join(tmpdir(), 'vesta-host-marks-users-'));
  chmodSync(shared, 0o1777);
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
  rmSync(shared, { recursive: true, force: true });
});

/** `vesta rest` on machine id `machineId`, its host marks under `marks` (or as `env` says). */
function rest(machineId: number, env: Record<string, string>, user?: typeof NOBODY): VestaProcess {
  const stateDir = join(shared, `state-${machineId}-${user === undefined ? 'root' : 'nobody'}`);
  const p = spawnVesta(
    'rest',
    [
      ...['--host', '127.0.0.1', '--port', '0', '--machine-id', String(machineId)],
      ...['--state-dir', stateDir],
    ],
    {
      env: { VESTA_HOST_LOCK_SCOPE: `host-marks-users-${process.pid}`, ...env },
      ...(user === undefined ? {} : { user }),
    },
  );
  running.push(p);
  return p;
}

/** Starts, issues an id, stops cleanly: the service leaves its host mark. */
async function leaveMark(machineId: number, env: Record<string, string>, user?: typeof NOBODY) {
  const p = rest(machineId, env, user);
  const port = await p.listening;
  expect((await fetch(`http://127.0.0.1:${port}/genid`)).status).toBe(200);
  expect(await p.stop('SIGTERM')).toEqual({ code: 0, signal: null });
}

/**
 * How a start that must be refused exited; a failure naming what `p` printed when it listened
 * instead, or did not exit in time (a hang).
 */
async function refusal(p: VestaProcess): Promise<VestaExit> {
  let timer: NodeJS.Timeout | undefined;
  const failed = (why: string): Error =>
    new Error(`${why}: ${p.stdout().join('\n')} ${p.stderr()}`);
  const notRefused = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(failed(`still running after ${EXIT_DEADLINE_MS} ms`)),
      EXIT_DEADLINE_MS,
    );
    p.listening.then(
      () => reject(failed('started instead')),
      () => undefined,
    );
  });
  try {
    return await Promise.race([p.exited, notRefused]);
  } finally {
    clearTimeout(timer);
  }
}

/** The one scope directory under a host-marks root, and the mark files in it. */
function scopeOf(root: string): { dir: string; marks: string[] } {
  const [scope] = readdirSync(root);
  const dir = join(root, scope ?? '');
  return { dir, marks: readdirSync(dir).filter((name) => name.startsWith('time-mark-')) };
}

describe.skipIf(!asRoot)(
  'host marks of a real vesta rest against planted files and another user (needs root: skipped otherwise)',
  () => {
    it('refuses a FIFO planted as a mark file with STATE_DIR_UNSAFE and a log line, at once, not a hang', async () => {
      const marks = join(shared, 'marks-fifo');
      await leaveMark(1011, { VESTA_HOST_MARKS_DIR: marks });
      const { dir } = scopeOf(marks);
      const fifo = join(dir, 'time-mark-planted.json');
      execFileSync('mkfifo', [fifo]);
      const p = rest(1011, { VESTA_HOST_MARKS_DIR: marks });
      expect(await refusal(p)).toEqual({ code: 1, signal: null });
      expect(p.stderr()).toContain(`STATE_DIR_UNSAFE: ${fifo} is not a regular file`);
      expect(statSync(fifo).isFIFO()).toBe(true);
    });

    it("refuses a mark file of another user that the service cannot read, as the other user's (not a mark that cannot be kept)", async () => {
      const marks = join(shared, 'marks-nobody');
      await leaveMark(1012, { VESTA_HOST_MARKS_DIR: marks }, NOBODY);
      const {
        dir,
        marks: [name],
      } = scopeOf(marks);
      const path = join(dir, name ?? '');
      // Root's file in nobody's own 0700 directory, unreadable to nobody.
      rmSync(path);
      writeFileSync(path, '{}\n', { mode: 0o600 });
      expect(statSync(path).uid).toBe(0);
      const p = rest(1012, { VESTA_HOST_MARKS_DIR: marks }, NOBODY);
      expect(await refusal(p)).toEqual({ code: 1, signal: null });
      expect(p.stderr()).toContain(
        `STATE_DIR_UNSAFE: ${path} is owned by uid 0, not by this process's user (uid 65534)`,
      );
      expect(p.stdout().join('\n')).not.toContain('cannot be kept');
    });

    it("skips an $XDG_RUNTIME_DIR that is another user's (su without -), logs why, and keeps the marks in its own temp dir", async () => {
      const runtime = join(shared, 'run-user-0');
      mkdirSync(runtime, { mode: 0o700 });
      const temp = join(shared, 'tmp-nobody');
      mkdirSync(temp);
      chownSync(temp, NOBODY.uid, NOBODY.gid);
      const env = { VESTA_HOST_MARKS_DIR: '', XDG_RUNTIME_DIR: runtime, TMPDIR: temp };
      const p = rest(1013, env, NOBODY);
      const port = await p.listening;
      expect((await fetch(`http://127.0.0.1:${port}/genid`)).status).toBe(200);
      expect(await p.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      const warning = p
        .stdout()
        .map((line) => JSON.parse(line) as { msg?: string })
        .find((entry) => entry.msg?.startsWith('XDG_RUNTIME_DIR'));
      expect(warning?.msg).toContain(
        `XDG_RUNTIME_DIR ${runtime} is owned by uid 0, not by this process's user (uid 65534)`,
      );
      expect(p.stdout().join('\n')).not.toContain('cannot be kept');
      const own = join(temp, 'vesta-host-marks-65534');
      expect(statSync(own)).toMatchObject({ uid: NOBODY.uid });
      expect(scopeOf(own).marks).toHaveLength(1);
      expect(readdirSync(runtime)).toEqual([]);
    });
  },
);
