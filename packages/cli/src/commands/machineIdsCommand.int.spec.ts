import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { IdConverter, silentLogger } from '@vesta/core';
import { EtcdMachineIdProvider } from '@vesta/etcd';
import { PostgresMachineIdProvider } from '@vesta/postgres';
import { RedisMachineIdProvider } from '@vesta/redis';
import {
  openAllocationEraOf,
  runToExit,
  startRedisServer,
  VESTA_CLI,
  type RedisServer,
} from '@vesta/testkit';
import { ZooKeeperMachineIdProvider } from '@vesta/zookeeper';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawnVesta, type VestaProcess } from '../testing/spawnVesta.js';

const ROOT = resolve(import.meta.dirname, '../../../..');
const codec = IdConverter.standard(0);
const stateDir = mkdtempSync(join(tmpdir(), 'vesta-machine-ids-cli-'));
const processes: VestaProcess[] = [];
let redis: RedisServer | undefined;
let runs = 0;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop('SIGKILL')));
  await redis?.dispose();
  rmSync(stateDir, { recursive: true, force: true });
});

/** `vesta rest` on port 0 with a state dir of its own and `args`. */
function rest(args: readonly string[], env?: Record<string, string>): VestaProcess {
  const p = spawnVesta(
    'rest',
    ['--port', '0', '--state-dir', join(stateDir, String(++runs)), ...args],
    env === undefined ? {} : { env },
  );
  processes.push(p);
  return p;
}

/** The machine id of the ids `vesta rest` on `port` issues. */
async function machineOf(port: number): Promise<number> {
  const body = (await (await fetch(`http://127.0.0.1:${port}/genid`)).json()) as { id: string };
  return codec.expId(BigInt(body.id)).machine;
}

/** Runs `vesta machine-ids ...` to completion. */
const machineIds = (args: readonly string[]) =>
  runToExit(process.execPath, [...VESTA_CLI, 'machine-ids', ...args], ROOT);

const rowsOf = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { machineId: number; owner: string | null; alive: boolean });

describe('vesta rest --coordinator and vesta machine-ids', () => {
  it('leases distinct server ids from Redis, keeps a key’s id across a restart, and lists and releases them', async () => {
    const prefix = `cli-${runs}`;
    const url = `${redis?.url ?? ''}/0?prefix=${prefix}`;
    await openAllocationEraOf(
      new RedisMachineIdProvider({
        url: redis?.url ?? '',
        prefix,
        eraWaitMs: 0,
        logger: silentLogger,
      }),
    );
    const a = rest(['--coordinator', url, '--coordinator-key', 'rest-a']);
    const b = rest(['--coordinator', url, '--coordinator-key', 'rest-b']);
    const [machineA, machineB] = await Promise.all([
      a.listening.then(machineOf),
      b.listening.then(machineOf),
    ]);
    expect(machineA).toBeGreaterThanOrEqual(924);
    expect(machineB).toBeGreaterThanOrEqual(924);
    expect(machineA).not.toBe(machineB);

    const listed = await machineIds(['list', '--json', '--coordinator', url]);
    expect(listed.code).toBe(0);
    expect(
      rowsOf(listed.stdout)
        .filter((r) => r.owner !== null)
        .map((r) => [r.machineId, r.owner, r.alive])
        .sort(),
    ).toEqual(
      [
        [machineA, 'rest-a', true],
        [machineB, 'rest-b', true],
      ].sort(),
    );
    const refused = await machineIds(['release', String(machineA), '--coordinator', url]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('vesta machine-ids: INVALID_ARGUMENT');

    await a.stop('SIGTERM');
    const again = rest(['--coordinator', url, '--coordinator-key', 'rest-a']);
    expect(await machineOf(await again.listening)).toBe(machineA);
    await Promise.all([again.stop('SIGTERM'), b.stop('SIGTERM')]);

    const released = await machineIds(['release', String(machineB), '--coordinator', url]);
    expect(released.code).toBe(0);
    expect(released.stdout).toContain(`released machine id ${machineB} (owner rest-b)`);
    const table = await machineIds(['list', '--coordinator', url]);
    expect(table.stdout).toMatch(new RegExp(`^${machineB}\\s+\\(released\\)\\s+no`, 'm'));
  });

  it('leases from ZooKeeper with --coordinator zookeeper://host:port/root, listed by vesta machine-ids', async () => {
    const connect = inject('zookeeperConnect');
    const root = `/cli-${Date.now()}`;
    await openAllocationEraOf(
      new ZooKeeperMachineIdProvider({ connect, root, eraWaitMs: 0, logger: silentLogger }),
    );
    const url = `zookeeper://${connect}${root}`;
    const server = rest(['--coordinator', url, '--coordinator-key', 'zk-a']);
    const machine = await machineOf(await server.listening);
    const listed = await machineIds(['list', '--json', '--coordinator', url]);
    expect(rowsOf(listed.stdout).find((r) => r.owner === 'zk-a')).toMatchObject({
      machineId: machine,
      alive: true,
    });
    await server.stop('SIGTERM');
  });

  it.each([
    [
      'postgres://user@host:port/db?schema=s',
      (n: string) => {
        const url = inject('postgresUrl');
        return {
          url: `${url}?schema=${n.replaceAll('-', '_')}`,
          provider: new PostgresMachineIdProvider({
            url,
            schema: n.replaceAll('-', '_'),
            eraWaitMs: 0,
            logger: silentLogger,
          }),
        };
      },
    ],
    [
      'etcd://host:port/root',
      (n: string) => ({
        url: `etcd://${inject('etcdEndpoints')}/${n}`,
        provider: new EtcdMachineIdProvider({
          endpoints: inject('etcdEndpoints'),
          root: `/${n}`,
          eraWaitMs: 0,
          logger: silentLogger,
        }),
      }),
    ],
  ])(
    'leases from %s with --coordinator, listed and released by vesta machine-ids',
    async (_, coordinator) => {
      const { url, provider } = coordinator(`cli-${Date.now()}-${++runs}`);
      await openAllocationEraOf(provider);
      const server = rest(['--coordinator', url, '--coordinator-key', 'srv-a']);
      const machine = await machineOf(await server.listening);
      expect(machine).toBeGreaterThanOrEqual(924);
      const listed = await machineIds(['list', '--json', '--coordinator', url]);
      expect(rowsOf(listed.stdout).find((r) => r.owner === 'srv-a')).toMatchObject({
        machineId: machine,
        alive: true,
      });
      const refused = await machineIds(['release', String(machine), '--coordinator', url]);
      expect(refused.stderr).toContain('vesta machine-ids: INVALID_ARGUMENT');
      await server.stop('SIGTERM');
      const released = await machineIds(['release', String(machine), '--coordinator', url]);
      expect(released.code).toBe(0);
      expect(released.stdout).toContain(`released machine id ${machine} (owner srv-a)`);
    },
  );

  it.each([
    ['ids-2', [], 926],
    ['ids-2.ids.default.svc.cluster.local', ['--machine-id-offset', '1000'], 1002],
  ])(
    'takes the machine id from the StatefulSet ordinal of pod %s',
    async (hostname, args, machine) => {
      const server = rest(['--machine-id-from', 'statefulset', ...args], { HOSTNAME: hostname });
      expect(await machineOf(await server.listening)).toBe(machine);
      await server.stop('SIGTERM');
    },
  );

  // Refused before any machine id is taken (no lease, no host lock): side by side, up to
  // vitest's maxConcurrency (5).
  it.concurrent.for([
    [['--machine-id-from', 'statefulset'], { HOSTNAME: 'localhost' }, 'MACHINE_ID_NOT_FOUND'],
    [['--machine-id-from', 'statefulset'], { HOSTNAME: 'ids-100' }, 'MACHINE_ID_OUT_OF_RANGE'],
    [['--coordinator', 'mysql://db:3306'], {}, 'INVALID_OPTIONS'],
    [['--coordinator', 'redis://127.0.0.1:1', '--machine-id', '1000'], {}, 'INVALID_OPTIONS'],
    [['--coordinator', 'redis://127.0.0.1:1?bogus=1'], {}, 'INVALID_OPTIONS'],
  ] as const)('refuses %j (env %j) with %s', async ([args, env, code], { expect }) => {
    const server = rest(args, env);
    const exit = await server.exited;
    expect(exit.code).toBe(1);
    expect(server.stderr()).toContain(`vesta rest: ${code}`);
  });

  it('refuses an unknown coordinator scheme in vesta machine-ids', async () => {
    const result = await machineIds(['list', '--coordinator', 'etcd-ish://x:1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('vesta machine-ids: INVALID_OPTIONS');
  });
});
