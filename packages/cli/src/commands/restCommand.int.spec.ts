import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { runToExit, VESTA_CLI } from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeId } from './decodeCommand.js';

const ROOT = resolve(import.meta.dirname, '../../../..');
// Node itself, not a wrapper such as the tsx binary: that one relays SIGTERM to its child and
// SIGKILLs it when the child does not acknowledge within 30 ms, which a server busy writing a
// 300,000-id answer on a loaded machine does not, so the request in flight was cut ("socket
// hang up"). Signals must reach the server itself.
const NODE_ARGS = VESTA_CLI;

interface Running {
  child: ChildProcess;
  url: string;
  logs: Record<string, unknown>[];
  exited: Promise<number | null>;
}

/** Starts `vesta rest` in a child process and waits for its "listening" log line. */
async function startRest(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [...NODE_ARGS, 'rest', '--port', '0', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((done, fail) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (typeof entry.url === 'string' && String(entry.msg).includes('listening')) done(entry.url);
    });
    void exited.then((code) => fail(new Error(`vesta rest exited with ${code}: ${stderr}`)));
  });
  return { child, url, logs, exited };
}

function get(url: string): Promise<{ status: number; body: string; end: number }> {
  return new Promise((done, fail) => {
    request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, body, end: performance.now() }));
      res.on('error', fail);
    })
      .on('error', fail)
      .end();
  });
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-cli-rest-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('vesta rest', () => {
  it('finishes a request in flight on SIGTERM, persists the mark, exits 0, and a restart honours the mark', async () => {
    const stateDir = join(dir, 'state');
    const args = ['--machine-id', '1010', '--state-dir', stateDir, '--type', 'min-granularity'];
    const first = await startRest([...args, '--max-batch', '300000']);
    const before = JSON.parse((await get(`${first.url}/genid`)).body) as { id: string };
    // ~300 ms of the clock at 1024 ids per ms: surely still in flight when the signal lands.
    const inFlight = get(`${first.url}/genids?count=300000`);
    // Until the batch has used up a unit (it is then surely in flight): bounded in time.
    const deadline = performance.now() + 30_000;
    for (;;) {
      const metrics = await get(`${first.url}/metrics`);
      if (/^vesta_sequence_exhausted_total [1-9]/m.test(metrics.body)) break;
      if (performance.now() > deadline) throw new Error('the batch never used up a unit in 30 s');
      await new Promise((r) => setTimeout(r, 2));
    }
    const signalledAt = performance.now();
    first.child.kill('SIGTERM');
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    const ids = [...answer.body.matchAll(/"([0-9]+)"/g)].map((m) => m[1] ?? '');
    expect(ids).toHaveLength(300_000);
    expect(answer.end).toBeGreaterThan(signalledAt);
    expect(await first.exited).toBe(0);
    expect(first.logs.some((l) => String(l.msg).includes('high-water mark persisted'))).toBe(true);

    const [file] = await readdir(stateDir);
    expect(file).toMatch(/^time-mark-g2-t1-m1010-[0-9a-f]{12}\.json$/);
    const lastId = ids.at(-1) ?? '';
    const last = decodeId(lastId, Date.parse('2025-01-01T00:00:00Z'));
    const saved = JSON.parse(await readFile(join(stateDir, file ?? ''), 'utf8')) as {
      markMs: number;
    };
    expect(saved.markMs).toBeGreaterThanOrEqual(Date.parse(last.date));
    expect(BigInt(before.id) < BigInt(lastId)).toBe(true);

    // A mark ahead of the clock (as after the clock stepped back while down): the restart waits for it.
    const aheadMs = Date.now() + 1500;
    await writeFile(join(stateDir, file ?? ''), JSON.stringify({ ...saved, markMs: aheadMs }));
    const second = await startRest(args);
    try {
      const next = JSON.parse((await get(`${second.url}/genid`)).body) as { id: string };
      expect(BigInt(next.id) > BigInt(lastId)).toBe(true);
      expect(
        Date.parse(decodeId(next.id, Date.parse('2025-01-01T00:00:00Z')).date),
      ).toBeGreaterThanOrEqual(aheadMs);
    } finally {
      second.child.kill('SIGINT');
      expect(await second.exited).toBe(0);
    }
  });

  it('defaults to machine id 1023 with a log line, reads flags from VESTA_* variables, and prints a curl line', async () => {
    const running = await startRest([], {
      VESTA_STATE_DIR: join(dir, 'env-state'),
      VESTA_AUTH_TOKEN: 'tok-123456',
    });
    try {
      expect(
        running.logs.some((l) => l.machineId === 1023 && String(l.msg).includes('default')),
      ).toBe(true);
      expect(
        running.logs.some((l) =>
          String(l.msg).startsWith(
            `try: curl -s -H "Authorization: Bearer $VESTA_AUTH_TOKEN" ${running.url}/genid`,
          ),
        ),
      ).toBe(true);
      expect((await get(`${running.url}/genid`)).status).toBe(401);
      expect(await readdir(join(dir, 'env-state'))).toEqual([]);
    } finally {
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    }
  });

  it('scrambles ids with VESTA_SCRAMBLE_KEY on request, never logs the key, and vesta decode reads the codes back', async () => {
    const key = 'cli-scramble-key-for-tests';
    const running = await startRest(['--no-state-dir', '--log-level', 'debug'], {
      VESTA_SCRAMBLE_KEY: key,
    });
    try {
      const plain = JSON.parse((await get(`${running.url}/genid`)).body) as { id: string };
      const answer = await get(`${running.url}/genid?format=base32&scrambled=true`);
      expect(answer.status).toBe(200);
      const { id: code } = JSON.parse(answer.body) as { id: string };
      expect(code).toMatch(/^[0-9A-Z]{13}$/);
      const decoded = await runToExit(
        process.execPath,
        [...NODE_ARGS, 'decode', code, '--format', 'base32', '--scrambled', '--scramble-key', key],
        ROOT,
      );
      expect(decoded.stderr).toBe('');
      const fields = JSON.parse(decoded.stdout) as { id: string; machine: number };
      expect(fields.machine).toBe(1023);
      expect(BigInt(fields.id) > BigInt(plain.id)).toBe(true);
      expect(JSON.stringify(running.logs)).not.toContain(key);
    } finally {
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    }
  });

  it("serves Leaf's paths with --layout leaf: Leaf's ids, its epoch, a machine id of the top tenth", async () => {
    // A host of its own: this host's marks of Vesta ids (other specs) could meet Leaf's ids, so
    // the service would rightly refuse to start beside them (STATE_MISMATCH).
    const running = await startRest(['--layout', 'leaf', '--no-state-dir'], {
      VESTA_HOST_LOCK_SCOPE: `leaf-${process.pid}`,
    });
    try {
      const before = Date.now();
      const got = await get(`${running.url}/api/snowflake/get/order-ids`);
      expect(got.status).toBe(200);
      expect(got.body).toMatch(/^[0-9]+$/);
      const id = BigInt(got.body);
      // Leaf's own reading: workerId = (id >> 12) & 1023, time = (id >> 22) + 1288834974657.
      expect(Number((id >> 12n) & 1023n)).toBe(1023);
      const ms = Number((id >> 22n) + 1288834974657n);
      expect(Math.abs(ms - before)).toBeLessThan(60_000);
      const decoded = JSON.parse(
        (await get(`${running.url}/api/snowflake/decodeSnowflakeId?snowflakeId=${id}`)).body,
      ) as { timestamp: string; workerId: string };
      expect(decoded.workerId).toBe('1023');
      expect(decoded.timestamp.startsWith(`${ms}(`)).toBe(true);
      const info = JSON.parse((await get(`${running.url}/info`)).body) as Record<string, unknown>;
      expect(info).toMatchObject({ preset: 'leaf', epochMs: 1288834974657, genMethod: 0 });
    } finally {
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    }
  });

  it('serves named generators from --generators, unique across names, and refuses unknown and malformed names', async () => {
    const running = await startRest(['--no-state-dir', '--generators', 'orders,users']);
    try {
      const orders = await get(`${running.url}/genids?key=orders&count=50`);
      const users = await get(`${running.url}/genids?key=users&count=50`);
      expect([orders.status, users.status]).toEqual([200, 200]);
      const ids = [...`${orders.body}${users.body}`.matchAll(/"(\d+)"/g)].map((m) => m[1]);
      expect(new Set(ids).size).toBe(100);
      expect((await get(`${running.url}/genid?key=payments`)).status).toBe(404);
    } finally {
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    }
    const refused = await runToExit(
      process.execPath,
      [...NODE_ARGS, 'rest', '--no-state-dir', '--port', '0', '--generators', 'orders,,bad name'],
      ROOT,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/INVALID_OPTIONS/);
  });

  it('exits non-zero with a one-line reason on a bad flag', async () => {
    const child = spawn(process.execPath, [...NODE_ARGS, 'rest', '--machine-id', '12'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^vesta rest: .*924 to 1023/);
  });
});
