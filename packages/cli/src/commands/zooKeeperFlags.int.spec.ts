import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GenMethod, IdConverter, IdType, silentLogger } from '@vesta/core';
import { createIdClient } from '@vesta/server';
import { runToExit, VESTA_CLI } from '@vesta/testkit';
import { ZooKeeperMachineIdProvider } from '@vesta/zookeeper';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { spawnVesta, type VestaProcess } from '../testing/spawnVesta.js';

const ROOT = resolve(import.meta.dirname, '../../../..');
const connect = inject('zookeeperConnect');
const codec = IdConverter.standard(0);
const stateDir = mkdtempSync(join(tmpdir(), 'vesta-zk-flags-cli-'));
const processes: VestaProcess[] = [];
let runs = 0;

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop('SIGKILL')));
  rmSync(stateDir, { recursive: true, force: true });
});

/** `vesta <mode>` on port 0 with a state dir of its own. */
function start(
  mode: 'rest' | 'server',
  args: readonly string[],
  env?: Record<string, string>,
): VestaProcess {
  const p = spawnVesta(
    mode,
    ['--port', '0', '--state-dir', join(stateDir, String(++runs)), ...args],
    env === undefined ? {} : { env },
  );
  processes.push(p);
  return p;
}

/** Runs `vesta ...` to completion. */
const vesta = (args: readonly string[]) =>
  runToExit(process.execPath, [...VESTA_CLI, ...args], ROOT);

/** A fresh ZooKeeper root whose allocation era is open (a start would wait out the fence). */
async function freshRoot(): Promise<string> {
  const root = `/cli-deprecated-${Date.now()}-${++runs}`;
  const provider = new ZooKeeperMachineIdProvider({
    connect,
    root,
    eraWaitMs: 0,
    logger: silentLogger,
  });
  const lease = await provider.acquire({
    range: { min: 0, max: 0 },
    genMethod: GenMethod.EMBEDDED,
    type: IdType.MAX_PEAK,
  });
  await lease.release?.();
  return root;
}

/** The lines of `stderr` that say something is deprecated. */
const deprecations = (stderr: string): string[] =>
  stderr.split('\n').filter((line) => line.includes('deprecated'));

const owners = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { machineId: number; owner: string | null; alive: boolean })
    .filter((row) => row.alive)
    .map((row) => row.owner)
    .sort();

/** The owners of the live ids under `root`, sorted, as `vesta machine-ids list` reads them. */
async function listedOwners(root: string): Promise<(string | null)[]> {
  const listed = await vesta([
    'machine-ids',
    'list',
    '--json',
    '--coordinator',
    `zookeeper://${connect}${root}`,
  ]);
  return owners(listed.stdout);
}

describe('the deprecated ZooKeeper flags', () => {
  it('vesta rest --zookeeper --zk-root --zk-key: one deprecation line naming --coordinator, one process as with --coordinator, and it issues', async () => {
    const root = await freshRoot();
    const rest = start('rest', ['--zookeeper', connect, '--zk-root', root, '--zk-key', 'old-a']);
    const port = await rest.listening;
    const body = (await (await fetch(`http://127.0.0.1:${port}/genid`)).json()) as { id: string };
    const machine = codec.expId(BigInt(body.id)).machine;
    expect(machine).toBeGreaterThanOrEqual(924);
    expect(deprecations(rest.stderr())).toEqual([
      `vesta: --zookeeper, --zk-root and --zk-key are deprecated and will go in the next release; use --coordinator zookeeper://${connect}${root} --coordinator-key old-a`,
    ]);
    // One process under the unsuffixed key, as --coordinator without --workers.
    expect(await listedOwners(root)).toEqual(['old-a']);
    await rest.stop('SIGTERM');
  });

  it('vesta rest --zookeeper --workers 2: the line once, not once per worker; each worker leases under <key>#<i>', async () => {
    const root = await freshRoot();
    const rest = start('rest', [
      '--zookeeper',
      connect,
      '--zk-root',
      root,
      '--zk-key',
      'old-w',
      '--workers',
      '2',
    ]);
    await rest.listening;
    expect(await listedOwners(root)).toEqual(['old-w#0', 'old-w#1']);
    expect(deprecations(rest.stderr())).toHaveLength(1);
    await rest.stop('SIGTERM');
  });

  it('vesta server with VESTA_ZOOKEEPER, VESTA_ZK_ROOT and VESTA_ZK_KEY: the line names the variables and their replacements', async () => {
    const root = await freshRoot();
    const server = start('server', [], {
      VESTA_ZOOKEEPER: connect,
      VESTA_ZK_ROOT: root,
      VESTA_ZK_KEY: 'old-tcp',
    });
    const port = await server.listening;
    const client = await createIdClient({ servers: [`127.0.0.1:${port}`] });
    expect(codec.expId(await client.genId()).machine).toBeGreaterThanOrEqual(924);
    await client.close();
    expect(deprecations(server.stderr())).toEqual([
      `vesta: VESTA_ZOOKEEPER, VESTA_ZK_ROOT and VESTA_ZK_KEY are deprecated and will go in the next release; use VESTA_COORDINATOR=zookeeper://${connect}${root} VESTA_COORDINATOR_KEY=old-tcp`,
    ]);
    await server.stop('SIGTERM');
  });

  it('vesta zookeeper list: one deprecation line naming vesta machine-ids, and the same rows', async () => {
    const root = await freshRoot();
    const rest = start('rest', [
      '--coordinator',
      `zookeeper://${connect}${root}`,
      '--coordinator-key',
      'new-a',
    ]);
    await rest.listening;
    const listed = await vesta([
      'zookeeper',
      'list',
      '--json',
      '--zookeeper',
      connect,
      '--zk-root',
      root,
    ]);
    expect(listed.code).toBe(0);
    expect(owners(listed.stdout)).toEqual(['new-a']);
    expect(deprecations(listed.stderr)).toEqual([
      `vesta: vesta zookeeper is deprecated and will go in the next release; use vesta machine-ids list --coordinator zookeeper://${connect}${root}`,
    ]);
    await rest.stop('SIGTERM');
  });

  it('refuses --zookeeper beside --coordinator with INVALID_OPTIONS, as two machine-id sources', async () => {
    const result = await vesta([
      'server',
      '--port',
      '0',
      '--zookeeper',
      connect,
      '--coordinator',
      `zookeeper://${connect}`,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('INVALID_OPTIONS');
    expect(result.stderr).toContain('give one machine-id source');
  });
});

describe('the help of the commands that take --coordinator', () => {
  it.each([['rest'], ['server'], ['machine-ids']])(
    'vesta %s --help lists every coordinator scheme with an example',
    async (command) => {
      const result = await vesta([...command.split(' '), '--help']);
      expect(result.code).toBe(0);
      for (const scheme of ['zookeeper', 'redis', 'postgres', 'etcd']) {
        expect(result.stdout).toMatch(new RegExp(`^\\s+${scheme}://`, 'm'));
        expect(result.stdout).toMatch(new RegExp(`e\\.g\\. ${scheme}://\\S+`));
      }
      expect(result.stdout).toContain('postgresql://');
    },
  );
});
