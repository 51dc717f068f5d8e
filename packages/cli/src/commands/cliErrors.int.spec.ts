import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { silentLogger } from '@vesta/core';
import { createIdClient } from '@vesta/server';
import { runToExit, VESTA_CLI, type ProcessResult } from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../../..');

/** Runs the real `vesta` command to its exit (bounded by the test timeout). */
function vesta(args: string[]): Promise<ProcessResult> {
  return runToExit(process.execPath, [...VESTA_CLI, ...args], ROOT);
}

let dir: string;
let busy: Server;
let busyPort: number;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-cli-errors-'));
  busy = createServer();
  await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
  busyPort = (busy.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((done) => busy.close(() => done()));
  await rm(dir, { recursive: true, force: true });
});

/** `vesta <mode>` on machine id 1001 and a free port, with its mark in `stateDir`. */
function startOnStateDir(mode: 'rest' | 'server', stateDir: string): ReturnType<typeof vesta> {
  return vesta([mode, '--port', '0', '--machine-id', '1001', '--state-dir', stateDir]);
}

/** The state dir a clean run of `vesta <mode>` left its mark in, one run per mode. */
const cleanRuns = new Map<'rest' | 'server', Promise<string>>();

/** Runs `vesta <mode>` once, issues an id (the mark is written once ids are issued), stops it. */
async function runClean(mode: 'rest' | 'server'): Promise<string> {
  const stateDir = join(dir, `${mode}-clean`);
  const child = spawn(
    process.execPath,
    [...VESTA_CLI, mode, '--port', '0', '--machine-id', '1001', '--state-dir', stateDir],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((done) => child.once('close', done));
  const listening = await new Promise<{ url: string; port: number }>((done, fail) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg: string; url: string; port: number };
      if (entry.msg.includes('listening on')) done(entry);
    });
    void exited.then((code) => fail(new Error(`vesta ${mode} exited with ${code}`)));
  });
  if (mode === 'rest') {
    expect((await fetch(`${listening.url}/genid`)).status).toBe(200);
  } else {
    const ids = await createIdClient({
      servers: [`127.0.0.1:${listening.port}`],
      logger: silentLogger,
    });
    await ids.genId();
    await ids.close();
  }
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  return stateDir;
}

/**
 * A state dir holding the mark a clean run of `vesta <mode>` left behind, spoilt by `edit`: a
 * copy of the one clean run's of the mode (see cleanRuns), so that each spoilt copy costs no
 * server start of its own.
 */
async function stateDirWithMark(
  mode: 'rest' | 'server',
  name: string,
  edit: (file: string) => Promise<void>,
): Promise<string> {
  let clean = cleanRuns.get(mode);
  if (clean === undefined) {
    clean = runClean(mode);
    cleanRuns.set(mode, clean);
  }
  const stateDir = join(dir, name);
  await cp(await clean, stateDir, { recursive: true });
  const files = await readdir(stateDir);
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) await edit(join(stateDir, file));
  return stateDir;
}

describe('vesta start-up refusals', () => {
  it.each(['rest', 'server'] as const)(
    '%s: a port in use is LISTEN_FAILED on stderr, exit 1',
    async (mode) => {
      const result = await vesta([
        mode,
        '--port',
        String(busyPort),
        '--no-state-dir',
        '--log-level',
        'silent',
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(`^vesta ${mode}: LISTEN_FAILED: .*${busyPort}`, 'm'),
      );
    },
  );

  it('server: a gRPC port in use is LISTEN_FAILED, the one line on stderr (none of grpc-js), exit 1', async () => {
    const result = await vesta([
      'server',
      '--port',
      '0',
      '--grpc-port',
      String(busyPort),
      '--no-state-dir',
      '--log-level',
      'silent',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^vesta server: LISTEN_FAILED: gRPC .*${busyPort}`)),
    ]);
  });

  it.each(['rest', 'server'] as const)(
    '%s: a machine id out of range is MACHINE_ID_OUT_OF_RANGE on stderr, exit 1',
    async (mode) => {
      const result = await vesta([mode, '--port', '0', '--machine-id', '12', '--no-state-dir']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^vesta ${mode}: MACHINE_ID_OUT_OF_RANGE: `, 'm'));
    },
  );

  it.each(['rest', 'server'] as const)(
    '%s: a mark an hour ahead of the clock is CLOCK_BEHIND_HIGH_WATER_MARK on stderr, exit 1',
    async (mode) => {
      const stateDir = await stateDirWithMark(mode, `${mode}-ahead`, async (file) => {
        const mark = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
        await writeFile(file, JSON.stringify({ ...mark, markMs: Date.now() + 3_600_000 }));
      });
      const result = await startOnStateDir(mode, stateDir);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(`^vesta ${mode}: CLOCK_BEHIND_HIGH_WATER_MARK: `, 'm'),
      );
    },
  );

  it.each(['rest', 'server'] as const)(
    '%s: a corrupt mark file is refused with its code on stderr, exit 1',
    async (mode) => {
      const stateDir = await stateDirWithMark(mode, `${mode}-corrupt`, (file) =>
        writeFile(file, '{"markMs": not json'),
      );
      const result = await startOnStateDir(mode, stateDir);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^vesta ${mode}: [A-Z_]+: `, 'm'));
      expect(result.stderr).not.toMatch(/INTERNAL_ERROR/);
    },
  );

  it('rest: a bad --epoch is INVALID_OPTIONS on stderr, exit 1', async () => {
    const result = await vesta(['rest', '--port', '0', '--no-state-dir', '--epoch', '1/2/2020']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^vesta rest: INVALID_OPTIONS: --epoch must be /m);
  });
});

// Offline commands, each its own process touching nothing the others read: up to vitest's
// maxConcurrency (5) at once.
describe.concurrent('vesta decode, make and --version', () => {
  it('prints the version of the cli package', async ({ expect }) => {
    const manifest = JSON.parse(
      await readFile(join(ROOT, 'packages/cli/package.json'), 'utf8'),
    ) as { version: string };
    const result = await vesta(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });
  });

  it("make: --version is the id's version bit, not the CLI's version", async ({ expect }) => {
    const result = await vesta([
      'make',
      '--version',
      '1',
      '--time',
      '5',
      '--seq',
      '1',
      '--machine',
      '3',
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    // Bit 63 set: the version bit, under the time 5 at bit 30 and sequence 1 at bit 10 (max-peak).
    expect(BigInt(result.stdout.trim())).toBe((1n << 63n) | (5n << 30n) | (1n << 10n) | 3n);
  });

  it.for([
    [
      ['make', '--time', '1', '--machine', '0'],
      /^vesta make: INVALID_ARGUMENT: required option '--seq <n>' not specified$/m,
    ],
    [['decode', '1', '--bogus'], /^vesta decode: INVALID_ARGUMENT: unknown option '--bogus'$/m],
    [
      ['machine-ids', 'list', '--coordinator', 'redis://127.0.0.1:1', '--bogus'],
      /^vesta machine-ids list: INVALID_ARGUMENT: unknown option '--bogus'$/m,
    ],
    [['frob'], /^vesta: INVALID_ARGUMENT: unknown command 'frob'$/m],
  ] satisfies [string[], RegExp][])(
    '%j: a usage error is INVALID_ARGUMENT on stderr with a hint, exit 1',
    async ([args, line], { expect }) => {
      const result = await vesta(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(line);
      expect(result.stderr).toMatch(/^\(run "vesta.* --help" for usage\)$/m);
    },
  );

  it('decode: a malformed id is INVALID_ARGUMENT on stderr, exit 1', async ({ expect }) => {
    const result = await vesta(['decode', '12x']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^vesta decode: INVALID_ARGUMENT: /);
  });

  it.for(['March 3', '-1', '1/2/2020', '', '1.5'])(
    'decode: --epoch %j is INVALID_OPTIONS on stderr, exit 1',
    async (epoch, { expect }) => {
      const result = await vesta(['decode', '1', '--epoch', epoch]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^vesta decode: INVALID_OPTIONS: --epoch must be /);
    },
  );

  it('decode: --epoch of digits is Unix ms, as the library reads it', async ({ expect }) => {
    const result = await vesta(['decode', String(1n << 30n), '--epoch', '2025']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ time: 1, date: '1970-01-01T00:00:03.025Z' });
  });

  it('make: a field out of range is INVALID_ARGUMENT on stderr, exit 1', async ({ expect }) => {
    const result = await vesta(['make', '--time', '1', '--seq', '1048576', '--machine', '0']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^vesta make: INVALID_ARGUMENT: .*seq/);
  });

  it('make: a --date that is no ISO-8601 date-time is INVALID_ARGUMENT on stderr, exit 1', async ({
    expect,
  }) => {
    const result = await vesta(['make', '--date', 'March 3', '--seq', '1', '--machine', '1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^vesta make: INVALID_ARGUMENT: --date must be /);
  });
});
