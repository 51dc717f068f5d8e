import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

interface Started {
  npmPid: number;
  serverPid: number;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm start` as an operator runs it, up to the server's "listening" line. */
async function npmStart(stateDir: string): Promise<Started> {
  const child = spawn(
    'npm',
    ['start', '--', '--port', '0', '--machine-id', '1002', '--state-dir', stateDir],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  const listening = await new Promise<{ pid: number; port: number }>((done, fail) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      output += `${line}\n`;
      // npm and pnpm print plain lines first; the server logs JSON.
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as { msg: string; pid: number; port: number };
      if (entry.msg.includes('listening on')) done(entry);
    });
    void exited.then(({ code }) => fail(new Error(`npm start exited with ${code}: ${output}`)));
  });
  return { npmPid: child.pid ?? -1, serverPid: listening.pid, port: listening.port, exited };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether something accepts connections on the port (a refused connect means nothing does). */
function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

let dir: string;
let runs = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-npm-start-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('npm start', () => {
  it.each([
    ['the npm process', (s: Started) => s.npmPid],
    ['the pid the server logged', (s: Started) => s.serverPid],
  ])(
    'stops the server when SIGTERM goes to %s, leaving no process on the port',
    async (_to, pidOf) => {
      const started = await npmStart(join(dir, `state-${++runs}`));
      try {
        expect(await accepts(started.port)).toBe(true);
        process.kill(pidOf(started), 'SIGTERM');
        expect(await started.exited).toEqual({ code: 0, signal: null });
        expect(alive(started.serverPid)).toBe(false);
        expect(await accepts(started.port)).toBe(false);
      } finally {
        // Only if an assertion failed: do not leave a server behind.
        if (alive(started.serverPid)) process.kill(started.serverPid, 'SIGKILL');
      }
    },
  );
});
