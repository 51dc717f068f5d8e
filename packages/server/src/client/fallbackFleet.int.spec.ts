import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  compiledFixture,
  FIXTURE_EXEC_ARGV,
  freePort,
  startRedisServer,
  tempDir,
  type RedisServer,
} from '@vesta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const CLIENT = new URL('../__fixtures__/fallbackClient.fixture.ts', import.meta.url);

/**
 * Each client host runs in a network namespace of its own (`unshare --net`, root only): its
 * 127.0.0.1 is its own, and so is the host lock (an abstract Unix socket, per namespace), as on
 * two machines. The coordinator is reached through its Unix socket on the shared file system.
 * Where namespaces cannot be made (not root), a host lock scope of its own stands for each host.
 */
const NAMESPACES = spawnSync('unshare', ['--net', 'true']).status === 0;

/** The fallback of a client host: a fixed machine id, or one leased from Redis. */
type Fallback = { machineId: number } | { redisPrefix: string };

/** One client host's run: the machine id its fallback issued under, its ids, its warnings. */
interface HostRun {
  readonly machine: number;
  readonly ids: string[];
  readonly stderr: string;
}

let redis: RedisServer;
let dir: string;
/** Where no id server answers (in a namespace of its own, no server answers anywhere). */
let nobody: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  dir = tempDir('vesta-fleet-');
  nobody = `127.0.0.1:${await freePort()}`;
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves with the first match of `pattern` in what `child` prints, within `timeoutMs`. */
function printed(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} within ${timeoutMs} ms: ${stderr}`)),
      timeoutMs,
    );
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1] ?? '');
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`client host exited (${String(code)}) before ${pattern}: ${stderr}`));
    });
  });
}

/**
 * Two client hosts with the same configuration (no id server answering, the same fallback),
 * started together, then issuing at the same time (100 ids a millisecond at most) until both
 * have issued and each for at least a second.
 */
async function twoHosts(fallback: Fallback): Promise<[HostRun, HostRun]> {
  const client = await compiledFixture(CLIENT);
  const hosts = ['a', 'b'].map((name) => {
    const out = join(dir, `${name}-${randomUUID()}.txt`);
    const config = {
      servers: [nobody],
      ...('machineId' in fallback
        ? { machineId: fallback.machineId }
        : {
            redis: {
              url: `redis://localhost/?path=${redis.socketPath}`,
              prefix: fallback.redisPrefix,
            },
          }),
      out,
      batch: 100,
      minMs: 1_000,
      maxMs: 20_000,
      maxIds: 2_000_000,
    };
    const node = [process.execPath, ...FIXTURE_EXEC_ARGV, client, JSON.stringify(config)];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // Another host's time marks are not on this host's disk.
      VESTA_HOST_MARKS_DIR: mkdtempSync(join(dir, `marks-${name}-`)),
    };
    // Without namespaces (not root), a host lock scope of its own stands for another host.
    if (!NAMESPACES) env['VESTA_HOST_LOCK_SCOPE'] = `fleet-${name}-${randomUUID()}`;
    const [command, ...args] = NAMESPACES ? ['unshare', '--net', ...node] : node;
    const child = spawn(command as string, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { child, out, exited, stderr: () => stderr };
  });
  const machines = await Promise.all(hosts.map((h) => printed(h.child, /READY (\d+)\n/, 30_000)));
  const issuing = hosts.map((h) => printed(h.child, /(ISSUING)\n/, 30_000));
  const done = hosts.map((h) => printed(h.child, /DONE \d+ (\w+)\n/, 60_000));
  for (const h of hosts) h.child.stdin?.write('GO\n');
  await Promise.all(issuing);
  // Both issue now: each stops only when told, so their issuing overlapped.
  for (const h of hosts) h.child.stdin?.end('STOP\n');
  expect(await Promise.all(done)).toEqual(['stopped', 'stopped']);
  const codes = await Promise.all(hosts.map((h) => h.exited));
  expect(codes).toEqual([0, 0]);
  return hosts.map((h, i) => ({
    machine: Number(machines[i]),
    ids: readFileSync(h.out, 'utf8').split('\n'),
    stderr: h.stderr(),
  })) as [HostRun, HostRun];
}

/** How many of `b`'s ids `a` issued too. */
function repeated(a: readonly string[], b: readonly string[]): number {
  const seen = new Set(a);
  return b.filter((id) => seen.has(id)).length;
}

describe('client hosts of one configuration, each in a network namespace of its own', () => {
  it('issue no id twice when their fallback leases its machine id from a coordinator', async () => {
    const [a, b] = await twoHosts({ redisPrefix: `fleet-${randomUUID()}` });
    expect(a.machine).not.toBe(b.machine);
    expect(a.ids.length).toBeGreaterThan(1_000);
    expect(b.ids.length).toBeGreaterThan(1_000);
    expect(new Set(a.ids).size).toBe(a.ids.length);
    expect(new Set(b.ids).size).toBe(b.ids.length);
    expect(repeated(a.ids, b.ids)).toBe(0);
    expect(a.stderr + b.stderr).not.toContain('fixed machine id');
  });

  it('repeat ids on a fixed fallback machine id, and each warns of it at start', async () => {
    const [a, b] = await twoHosts({ machineId: 17 });
    // Neither host lock saw the other: they started on one machine id, as on two machines.
    expect([a.machine, b.machine]).toEqual([17, 17]);
    expect(repeated(a.ids, b.ids)).toBeGreaterThan(0);
    for (const host of [a, b]) {
      expect(host.stderr).toContain('fixed machine id');
      expect(host.stderr).toContain('several hosts');
    }
  });
});
