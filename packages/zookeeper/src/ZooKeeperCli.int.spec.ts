import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { IdConverter } from '@vesta/core';
import { createIdClient } from '@vesta/server';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openAllocationEra, testRoot } from './testing/zkTestKit.js';
import { runToExit, VESTA_CLI, type ProcessResult } from '@vesta/testkit';

const connect = inject('zookeeperConnect');
const ROOT = resolve(import.meta.dirname, '../../..');
const stateDir = mkdtempSync(join(tmpdir(), 'vesta-zk-cli-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(stateDir, { recursive: true, force: true });
});
const converter = IdConverter.standard(0);

/** Starts `vesta <mode>` and resolves with its "listening" log entry. */
async function start(
  mode: 'rest' | 'server',
  args: string[],
): Promise<{ child: ChildProcess; entry: Record<string, unknown> }> {
  const child = spawn(
    process.execPath,
    [...VESTA_CLI, mode, '--port', '0', '--state-dir', join(stateDir, mode), ...args],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const entry = await new Promise<Record<string, unknown>>((done, fail) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const e = JSON.parse(line) as Record<string, unknown>;
      if (String(e['msg']).includes('listening')) done(e);
    });
    child.once('exit', (code) => fail(new Error(`vesta ${mode} exited with ${code}: ${stderr}`)));
  });
  return { child, entry };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

/** Runs `vesta machine-ids ...` to completion. */
function zkCli(args: string[]): Promise<ProcessResult> {
  return runToExit(process.execPath, [...VESTA_CLI, 'machine-ids', ...args], ROOT);
}

// One id per worker of `vesta rest --workers 2`, under <key>#0 and <key>#1, is
// restWorkers.int.spec.ts's (ids, owners and /health per worker).
describe('vesta rest and vesta server with --coordinator zookeeper://', () => {
  it('lease distinct server-range ids, keep them across a restart, and show in vesta machine-ids list', async () => {
    const root = testRoot();
    await openAllocationEra(connect, root);
    const zkArgs = ['--coordinator', `zookeeper://${connect}${root}`];
    const [rest, server] = await Promise.all([
      start('rest', [...zkArgs, '--coordinator-key', 'rest-a', '--workers', '1']),
      start('server', [...zkArgs, '--coordinator-key', 'tcp-a']),
    ]);
    const url = String(rest.entry['url']);
    const restId = BigInt(((await (await fetch(`${url}/genid`)).json()) as { id: string }).id);
    const restMachine = converter.expId(restId).machine;
    const client = await createIdClient({ servers: [`127.0.0.1:${String(server.entry['port'])}`] });
    const tcpMachine = converter.expId(await client.genId()).machine;
    await client.close();
    expect(restMachine).toBeGreaterThanOrEqual(924);
    expect(tcpMachine).toBeGreaterThanOrEqual(924);
    expect(tcpMachine).not.toBe(restMachine);
    expect((await fetch(`${url}/health`)).status).toBe(200);

    const listed = await zkCli(['list', '--json', ...zkArgs]);
    expect(listed.code).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { machineId: number; owner: string; alive: boolean });
    expect(rows.map((r) => [r.machineId, r.owner, r.alive]).sort()).toEqual(
      [
        [restMachine, 'rest-a', true],
        [tcpMachine, 'tcp-a', true],
      ].sort(),
    );
    const refused = await zkCli(['release', String(restMachine), ...zkArgs]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('INVALID_ARGUMENT');

    await stop(rest.child);
    const again = await start('rest', [...zkArgs, '--coordinator-key', 'rest-a', '--workers', '1']);
    const againId = BigInt(
      ((await (await fetch(`${String(again.entry['url'])}/genid`)).json()) as { id: string }).id,
    );
    expect(converter.expId(againId).machine).toBe(restMachine);
    expect(againId).toBeGreaterThan(restId);
    await Promise.all([stop(again.child), stop(server.child)]);

    const released = await zkCli(['release', String(tcpMachine), ...zkArgs]);
    expect(released.code).toBe(0);
    const after = await zkCli(['list', ...zkArgs]);
    expect(after.stdout).toContain('(released)');
  });
});
