import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../logging/Logger.js';
import { createIdService } from '../service/createIdService.js';

/**
 * Another local user against the host marks, with a real second OS user (`nobody`): the test
 * runs as root (as CI does) to act as that user and to chown what it plants.
 */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

let shared: string;
let saved: string | undefined;

beforeEach(() => {
  // A shared, sticky directory like /tmp, where any user may create names.
  shared = mkdtempSync(join(tmpdir(), 'vesta-shared-'));
  chmodSync(shared, 0o1777);
  saved = process.env['VESTA_HOST_MARKS_DIR'];
});

afterEach(() => {
  if (saved === undefined) delete process.env['VESTA_HOST_MARKS_DIR'];
  else process.env['VESTA_HOST_MARKS_DIR'] = saved;
  rmSync(shared, { recursive: true, force: true });
});

/** Runs a Node script as the other user, its arguments in `process.argv.slice(1)`. */
function asNobody(script: string, ...args: string[]): void {
  const run = spawnSync(process.execPath, ['-e', script, ...args], {
    uid: NOBODY,
    gid: NOBODY,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`as nobody: ${run.stderr}`);
}

/** A logger that keeps every line it is given, to check what reaches the log. */
function recordingLogger(): Logger & { readonly text: () => string } {
  const lines: unknown[] = [];
  const keep = (fields: unknown, message?: string): void => void lines.push([fields, message]);
  return { info: keep, warn: keep, error: keep, text: () => JSON.stringify(lines) };
}

/** Runs a service on the system clock once, so that it leaves its host mark; the mark's path. */
async function ownMark(root: string, machineId: number): Promise<string> {
  process.env['VESTA_HOST_MARKS_DIR'] = root;
  const service = await createIdService({ machineId });
  await service.genIds(10);
  await service.close();
  const [scope] = readdirSync(root);
  const [file] = readdirSync(join(root, scope ?? ''));
  return join(root, scope ?? '', file ?? '');
}

function markBody(path: string, change: Record<string, unknown>): string {
  const body = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  return JSON.stringify({ ...body, ...change });
}

/** A mark of unknown epoch (the first release's form): another epoch for any service. */
function firstReleaseMark(machineId: number): Record<string, unknown> {
  return { identity: undefined, markMs: Date.now(), machineId, genMethod: 0, type: 0 };
}

describe.runIf(asRoot)('host marks against another local user', () => {
  it('refuses a marks directory another user created first, open to all (0777)', async () => {
    const marks = join(shared, 'marks');
    asNobody(
      'const fs = require("fs"); fs.mkdirSync(process.argv[1]); fs.chmodSync(process.argv[1], 0o777);',
      marks,
    );
    process.env['VESTA_HOST_MARKS_DIR'] = marks;
    const refusal = createIdService({ machineId: 90 });
    await expect(refusal).rejects.toMatchObject({
      code: 'STATE_DIR_UNSAFE',
      details: { path: marks },
    });
    await expect(refusal).rejects.toThrow(/owned by uid 65534.*VESTA_HOST_MARKS_DIR/);
    expect(readdirSync(marks)).toEqual([]);
  });

  it("refuses a marks directory that is another user's symbolic link, and creates nothing where it points", async () => {
    const marks = join(shared, 'marks');
    const target = join(shared, 'chosen-by-them');
    asNobody(
      'const fs = require("fs"); fs.mkdirSync(process.argv[2], 0o777); fs.chmodSync(process.argv[2], 0o777); fs.symlinkSync(process.argv[2], process.argv[1]);',
      marks,
      target,
    );
    process.env['VESTA_HOST_MARKS_DIR'] = marks;
    await expect(createIdService({ machineId: 91 })).rejects.toMatchObject({
      code: 'STATE_DIR_UNSAFE',
      message: expect.stringContaining('is a symbolic link'),
    });
    expect(readdirSync(target)).toEqual([]);
  });

  it.each([
    ['a mark an hour in the future', 92, () => ({ markMs: Date.now() + 3_600_000 })],
    ['a mark under another epoch', 96, () => firstReleaseMark(96)],
  ])(
    'refuses %s planted by another user in a directory they made (STATE_DIR_UNSAFE, not a stopped start)',
    async (_what, machineId, change) => {
      const path = await ownMark(join(shared, 'ours'), machineId);
      const body = markBody(path, change());
      const marks = join(shared, 'marks');
      asNobody(
        'const fs = require("fs"), p = require("path"); const [root, scope, file, body] = process.argv.slice(1);' +
          'fs.mkdirSync(p.join(root, scope), { recursive: true, mode: 0o777 }); fs.chmodSync(root, 0o777);' +
          'fs.writeFileSync(p.join(root, scope, file), body);',
        marks,
        path.split('/').at(-2) ?? '',
        path.split('/').at(-1) ?? '',
        body,
      );
      process.env['VESTA_HOST_MARKS_DIR'] = marks;
      await expect(createIdService({ machineId })).rejects.toMatchObject({
        code: 'STATE_DIR_UNSAFE',
      });
    },
  );

  it.each([
    ['a mark an hour in the future', 93, () => ({ markMs: Date.now() + 3_600_000 })],
    ['a mark under another epoch', 97, () => firstReleaseMark(97)],
  ])(
    'refuses %s owned by another user inside its own directory',
    async (_what, machineId, change) => {
      const path = await ownMark(join(shared, 'ours'), machineId);
      writeFileSync(path, markBody(path, change()));
      chownSync(path, NOBODY, NOBODY);
      await expect(createIdService({ machineId })).rejects.toMatchObject({
        code: 'STATE_DIR_UNSAFE',
        message: expect.stringContaining('owned by uid 65534'),
      });
    },
  );

  it("never reads through a symbolic link at its mark's name, nor puts the target's text in a log", async () => {
    const path = await ownMark(join(shared, 'ours'), 94);
    const secret = join(shared, 'their-secret');
    asNobody(
      'require("fs").writeFileSync(process.argv[1], "SECRET-TEXT\\n", { mode: 0o644 });',
      secret,
    );
    unlinkSync(path);
    symlinkSync(secret, path);
    const logger = recordingLogger();
    const refusal = createIdService({ machineId: 94, logger });
    await expect(refusal).rejects.toMatchObject({ code: 'STATE_DIR_UNSAFE' });
    const error = (await refusal.catch((e: unknown) => e)) as Error;
    expect(`${error.message} ${String(error.cause)} ${logger.text()}`).not.toContain('SECRET');
    expect(readFileSync(secret, 'utf8')).toBe('SECRET-TEXT\n');
  });

  it('keeps its own host marks private: directories 0700, mark files 0600', async () => {
    const root = join(shared, 'ours');
    const path = await ownMark(root, 95);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(path).uid).toBe(0);
  });
});
