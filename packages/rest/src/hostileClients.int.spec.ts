import { silentLogger } from '@vesta/core';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { VESTA_CLI } from '@vesta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startRestServer } from './index.js';

const ROOT = resolve(import.meta.dirname, '../../..');

interface RunningRest {
  child: ChildProcess;
  port: number;
  /** The pid of the node process that serves (it logs its own). */
  serverPid: number;
  maxConnections: number;
  exited: Promise<unknown>;
}

const running: RunningRest[] = [];

/** Starts `vesta rest` through the CLI bin under `ulimit -n 1024` and waits for its limits and "listening" lines. */
async function startRestUnderUlimit(machineId: number): Promise<RunningRest> {
  const child = spawn(
    'sh',
    [
      '-c',
      'ulimit -n 1024 && exec "$0" "$@"',
      process.execPath,
      ...VESTA_CLI,
      'rest',
      '--port',
      '0',
      '--no-state-dir',
      '--machine-id',
      String(machineId),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise((done) => child.once('exit', done));
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const started = await new Promise<Omit<RunningRest, 'child' | 'exited'>>((done, fail) => {
    let maxConnections = 0;
    let serverPid = 0;
    const deadline = setTimeout(() => fail(new Error('no "listening" line in 60 s')), 60_000);
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (typeof entry.maxConnections === 'number') maxConnections = entry.maxConnections;
      if (typeof entry.pid === 'number') serverPid = entry.pid;
      if (typeof entry.port === 'number' && String(entry.msg).includes('listening')) {
        clearTimeout(deadline);
        done({ port: entry.port, serverPid, maxConnections });
      }
    });
    void exited.then((code) => {
      clearTimeout(deadline);
      fail(new Error(`vesta rest exited with ${String(code)}: ${stderr}`));
    });
  });
  const rest = { child, exited, ...started };
  running.push(rest);
  return rest;
}

afterEach(async () => {
  for (const rest of running.splice(0)) {
    rest.child.kill('SIGTERM');
    const killer = setTimeout(() => rest.child.kill('SIGKILL'), 15_000);
    await rest.exited;
    clearTimeout(killer);
  }
});

/** One GET on a connection of its own, failed after `deadlineMs`; the body is kept as text. */
function getOnce(
  port: number,
  path: string,
  deadlineMs = 10_000,
): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
      res.on('error', fail);
    });
    req.setTimeout(deadlineMs, () =>
      req.destroy(new Error(`no answer to ${path} in ${deadlineMs} ms`)),
    );
    req.on('error', fail);
    req.end();
  });
}

/** Polls `condition` every 20 ms until it holds; fails after `deadlineMs`. */
async function until(condition: () => boolean, what: string, deadlineMs = 30_000): Promise<void> {
  const end = performance.now() + deadlineMs;
  while (!condition()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function rssMb(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) / 1024;
}

describe('the REST server under hostile clients', () => {
  it('answers normal clients while 1,100 connections trickle header bytes, under ulimit -n 1024', async () => {
    const rest = await startRestUnderUlimit(1021);

    const attackers = new Set<Socket>();
    let connects = 0;
    let cut = 0;
    let attacking = true;
    // Each slow client comes back when cut, up to a bounded number of connections in all.
    const open = (): void => {
      if (!attacking || connects >= 4000) return;
      connects++;
      const socket = connect(rest.port, '127.0.0.1', () =>
        socket.write('GET /genid HTTP/1.1\r\nX-Slow: '),
      );
      attackers.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        attackers.delete(socket);
        cut++;
        setTimeout(open, 50);
      });
    };
    const trickle = setInterval(() => {
      for (const socket of attackers) if (!socket.connecting && socket.writable) socket.write('a');
    }, 500);
    try {
      for (let i = 0; i < 1100; i++) open();
      // Full strength: 1,100 made, and the server had to cut some (it is at its cap).
      await until(() => connects >= 1100 && cut > 0, 'the attack to reach the cap');
      for (let i = 0; i < 20; i++) {
        const answer = await getOnce(rest.port, i % 2 === 0 ? '/genid' : '/genids?count=100');
        expect(answer.status).toBe(200);
        expect(answer.body).toMatch(/^\{"ids?":\[?"[0-9]+"/);
      }
      // The default cap comes from the open-files limit: 90% of 1024.
      expect(rest.maxConnections).toBe(921);
    } finally {
      attacking = false;
      clearInterval(trickle);
      for (const socket of attackers) socket.destroy();
    }
  });

  it('keeps its memory bounded while 200 connections pipeline thousands of /genids?count=10000 without reading, and serves a real client', async () => {
    // About 100 MB at rest and 170 MB under this attack; without the guard it passes 2.5 GB.
    const BOUND_MB = 400;
    const rest = await startRestUnderUlimit(1022);
    let maxRss = rssMb(rest.serverPid);
    const attackers: Socket[] = [];
    const sample = setInterval(() => {
      maxRss = Math.max(maxRss, rssMb(rest.serverPid));
      // Over the bound the test has failed: stop feeding the server before it eats the machine.
      if (maxRss > BOUND_MB) for (const socket of attackers) socket.destroy();
    }, 25);
    const ask = 'GET /genids?count=10000 HTTP/1.1\r\nHost: a\r\n\r\n';
    const batch = ask.repeat(1000);
    const flooders: Promise<void>[] = [];
    const written: Promise<void>[] = [];
    try {
      for (let i = 0; i < 200; i++) {
        const socket = connect(rest.port, '127.0.0.1');
        socket.pause(); // never reads
        attackers.push(socket);
        // Pipelines 3,000 requests, then keeps pipelining (up to 200,000 in all) until the
        // server cuts it, which the next write then sees (EPIPE / ECONNRESET).
        let batches = 0;
        const more = (done: () => void) => (error?: Error | null) => {
          if (error || ++batches >= 200) done();
          else socket.write(batch, more(done));
        };
        written.push(new Promise((done) => socket.write(ask.repeat(3000), () => done())));
        flooders.push(
          new Promise((done) => {
            socket.on('error', () => undefined);
            socket.once('close', () => done());
            socket.write(
              batch,
              more(() => undefined),
            );
          }),
        );
      }
      await Promise.all(written);
      for (let i = 0; i < 10; i++) {
        const answer = await getOnce(rest.port, i % 2 === 0 ? '/genid' : '/genids?count=10000');
        expect(`${answer.status} ${answer.body.slice(0, 200)}`).toMatch(/^200 /);
        expect(maxRss).toBeLessThan(BOUND_MB);
      }
      // A connection that pipelines more than may wait, without reading, is closed.
      await Promise.race([
        Promise.all(flooders),
        until(() => maxRss > BOUND_MB, 'the flooding connections to be closed').then(() => {
          throw new Error(`RSS passed ${BOUND_MB} MB`);
        }),
      ]);
      expect(maxRss).toBeLessThan(BOUND_MB);
      expect((await getOnce(rest.port, '/health')).status).toBe(200);
    } finally {
      clearInterval(sample);
      for (const socket of attackers) socket.destroy();
    }
  });
});

describe('the REST server timeouts', () => {
  it('answers a request head that never completes with a coded 408 (REQUEST_TIMEOUT) and closes it once headersTimeoutMs is up', async () => {
    const server = await startRestServer({
      stateDir: false,
      logger: silentLogger,
      machineId: 1005,
      port: 0,
      headersTimeoutMs: 1000,
    });
    const socket = connect(server.port, '127.0.0.1', () =>
      socket.write('GET /genid HTTP/1.1\r\nX-Slow: '),
    );
    const trickle = setInterval(() => socket.writable && socket.write('a'), 100);
    try {
      const answer = await new Promise<string>((done, fail) => {
        let text = '';
        socket.on('data', (c: Buffer) => (text += c.toString()));
        socket.on('close', () => done(text));
        socket.on('error', fail);
        // Node checks its headers timeout every 30 s by default; 10 s is far from both.
        setTimeout(() => fail(new Error('still open after 10 s')), 10_000);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      expect(JSON.parse(body)).toMatchObject({ error: { code: 'REQUEST_TIMEOUT' } });
    } finally {
      clearInterval(trickle);
      socket.destroy();
      await server.close();
    }
  });

  it('closes a connection that never sends a byte once headersTimeoutMs is up', async () => {
    const server = await startRestServer({
      stateDir: false,
      logger: silentLogger,
      machineId: 1006,
      port: 0,
      headersTimeoutMs: 1000,
    });
    const socket = connect(server.port, '127.0.0.1');
    let text = '';
    try {
      await new Promise<void>((done, fail) => {
        socket.on('close', () => done());
        socket.on('error', () => undefined);
        socket.on('data', (c: Buffer) => (text += c.toString()));
        setTimeout(() => fail(new Error('still open after 10 s')), 10_000);
      });
      // Node's own headers timeout answers 408 first; the guard's sweep is the backstop.
      if (socket.bytesRead > 0) expect(text).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      socket.destroy();
      await server.close();
    }
  });
});
