import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { silentLogger } from '@vesta/core';
import { createIdClient } from '@vesta/server';
import { VESTA_CLI } from '@vesta/testkit';
import { afterAll, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]) {
  const child = spawn(process.execPath, [...VESTA_CLI, 'server', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, exited, stderr: () => stderr };
}

describe('vesta server', () => {
  it('serves ids with its machine id and state dir, exposes /health, and exits 0 on SIGTERM', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'vesta-cli-server-'));
    dirs.push(stateDir);
    const { child, exited } = run([
      '--port',
      '0',
      '--machine-id',
      '1021',
      '--state-dir',
      stateDir,
      '--metrics-port',
      '0',
      '--log-level',
      'info',
    ]);
    const lines = createInterface({ input: child.stdout });
    const listening = await new Promise<{ port: number; metricsPort: number }>(
      (resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no listening line in 30 s')), 30_000);
        lines.on('line', (line) => {
          const entry = JSON.parse(line) as { port?: number; metricsPort?: number; msg: string };
          if (entry.msg.startsWith('vesta server listening')) {
            clearTimeout(timer);
            resolve({ port: entry.port as number, metricsPort: entry.metricsPort as number });
          }
        });
      },
    );
    const ids = await createIdClient({
      servers: [`127.0.0.1:${listening.port}`],
      logger: silentLogger,
    });
    expect(ids.expId(await ids.genId())).toMatchObject({ machine: 1021, genMethod: 1 });
    expect((await fetch(`http://127.0.0.1:${listening.metricsPort}/health`)).status).toBe(200);
    await ids.close();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('exits 1 with a one-line message for a machine id outside the server range', async () => {
    const { exited, stderr } = run(['--port', '0', '--machine-id', '12', '--no-state-dir']);
    expect(await exited).toBe(1);
    expect(stderr()).toMatch(/^vesta server: .*924/m);
  });
});
