import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../eventually.js';
import { freePort } from '../freePort.js';
import { TestResources } from '../TestResources.js';
import { askTcp } from './askTcp.js';
import { startServerProcess, type ServerProcessOptions } from './startServerProcess.js';
import type { TestServer } from './TestServer.js';

/** A TCP server answering `ok` to anything; with `stubborn`, it ignores SIGTERM. */
const SERVER = `
const port = Number(process.argv[1]);
if (process.argv[2] === 'stubborn') process.on('SIGTERM', () => undefined);
require('node:net').createServer((s) => s.on('data', () => s.end('ok'))).listen(port, '127.0.0.1');
`;

const started: TestServer[] = [];
const resources = new TestResources();
afterAll(async () => {
  await Promise.all(started.map((server) => server.dispose()));
  await resources.dispose();
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function node(
  script: string,
  extra: Partial<ServerProcessOptions> & { args?: string[] } = {},
): Promise<{ server: TestServer; port: number; dir: string }> {
  const port = await freePort();
  const dir = resources.tempDir('vesta-process-spec-');
  const server = await startServerProcess({
    name: 'the node server',
    port,
    command: process.execPath,
    ready: async () => (await askTcp(port, 'hi')) === 'ok',
    readyTimeoutMs: 10_000,
    wipe: { dataDir: join(dir, 'data') },
    dir,
    ...extra,
    args: ['-e', script, String(port), ...(extra.args ?? [])],
  });
  started.push(server);
  return { server, port, dir };
}

const answers = async (port: number): Promise<boolean> => (await askTcp(port, 'hi')) === 'ok';

describe('startServerProcess', () => {
  it('resolves once the probe says ready, and restarts on the same port', async () => {
    const { server, port } = await node(SERVER);
    expect(server.address).toBe(`127.0.0.1:${port}`);
    const first = server.pid;
    expect(first).toBeGreaterThan(0);
    expect(await answers(port)).toBe(true);
    await server.restart();
    expect(server.pid).not.toBe(first);
    expect(await answers(port)).toBe(true);
    await server.stop();
    expect(server.pid).toBeUndefined();
    expect(await answers(port)).toBe(false);
  });

  it('rejects with the tail of its output when the process exits before it is ready', async () => {
    await expect(
      node('console.error("no config here"); process.exit(3)', { exitHint: '; look here' }),
    ).rejects.toThrow(
      /the node server did not start on 127\.0\.0\.1:\d+ \(it exited; look here\):\nno config here/,
    );
  });

  it('kills a process that is not ready by the deadline, and rejects', async () => {
    const port = await freePort();
    const pidFile = join(resources.tempDir('vesta-process-spec-'), 'pid');
    await expect(
      startServerProcess({
        name: 'the silent server',
        port,
        command: process.execPath,
        args: [
          '-e',
          `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`,
        ],
        ready: async () => false,
        readyTimeoutMs: 3000,
        probeIntervalMs: 20,
        wipe: async () => undefined,
        dir: resources.tempDir('vesta-process-spec-'),
      }),
    ).rejects.toThrow(/the silent server did not start on 127\.0\.0\.1:\d+:/);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(await eventually(() => !alive(pid))).toBe(true);
  });

  it('sends SIGKILL when a stop is not obeyed within the bound', async () => {
    const { server, port } = await node(SERVER, { args: ['stubborn'], stopTimeoutMs: 300 });
    await server.stop();
    expect(await answers(port)).toBe(false);
  });

  it('wipes by killing it, leaving its data dir empty, and starting it again', async () => {
    const { server, port, dir } = await node(SERVER);
    const dataDir = join(dir, 'data');
    expect(existsSync(dataDir)).toBe(false);
    await server.wipe();
    writeFileSync(join(dataDir, 'state'), 'x');
    await server.wipe();
    expect(readdirSync(dataDir)).toEqual([]);
    expect(await answers(port)).toBe(true);
    await server.dispose();
    expect(existsSync(dir)).toBe(false);
  });

  it('wipes its own way when given a function', async () => {
    let wiped = 0;
    const { server } = await node(SERVER, { wipe: async () => void wiped++ });
    await server.wipe();
    expect(wiped).toBe(1);
  });
});
