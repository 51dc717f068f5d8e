import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  eventually,
  runToExit,
  startRedisServer,
  VESTA_CLI,
  type RedisServer,
} from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawnVesta, type VestaProcess } from '../testing/spawnVesta.js';

const ROOT = resolve(import.meta.dirname, '../../../..');
const stateDir = mkdtempSync(join(tmpdir(), 'vesta-machine-ids-init-'));
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

/** What every coordinator logs when a start begins its era wait (the era wait in @vesta/lease's LeaseProvider). */
const ERA_WAIT = 'holds no open allocation era';

/** `vesta rest` on port 0 with a state dir of its own, on `coordinator` under `key`. */
function rest(coordinator: string, key: string): VestaProcess {
  const dir = join(stateDir, String(++runs));
  const p = spawnVesta('rest', [
    ...['--port', '0', '--state-dir', dir],
    ...['--coordinator', coordinator, '--coordinator-key', key],
  ]);
  processes.push(p);
  return p;
}

/** Runs `vesta machine-ids ...` to completion. */
const machineIds = (args: readonly string[]) =>
  runToExit(process.execPath, [...VESTA_CLI, 'machine-ids', ...args], ROOT);

/** A fresh namespace of each coordinator, as a `--coordinator` URL. */
const COORDINATORS: readonly [string, () => string][] = [
  ['Redis', () => `${redis?.url ?? ''}/0?prefix=init-${Date.now()}-${++runs}`],
  ['ZooKeeper', () => `zookeeper://${inject('zookeeperConnect')}/init-${Date.now()}-${++runs}`],
  ['PostgreSQL', () => `${inject('postgresUrl')}?schema=init_${Date.now()}_${++runs}`],
  ['etcd', () => `etcd://${inject('etcdEndpoints')}/init-${Date.now()}-${++runs}`],
];

describe('vesta machine-ids init', () => {
  it.each(COORDINATORS)(
    'declares a new %s store new, so that the first vesta rest answers without the era wait; a second init is refused',
    async (_, url) => {
      const coordinator = url();
      const init = await machineIds(['init', '--coordinator', coordinator]);
      expect(init.stderr).toBe('');
      expect(init.code).toBe(0);
      expect(init.stdout).toMatch(/^declared .+ new: allocation era [0-9a-f-]{36} created open/);

      const server = rest(coordinator, 'first');
      const port = await server.listening;
      const answer = await fetch(`http://127.0.0.1:${port}/genid`);
      expect(answer.status).toBe(200);
      expect((await answer.json()) as { id: string }).toMatchObject({ id: /^[0-9]+$/ });
      expect(server.stdout().filter((line) => line.includes(ERA_WAIT))).toEqual([]);
      await server.stop('SIGTERM');

      const again = await machineIds(['init', '--coordinator', coordinator]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/^vesta machine-ids: COORDINATOR_NOT_NEW: .+ is not new/);
      expect(again.stdout).toBe('');
    },
  );

  // Each on a store of its own, stopped while it waits (before it leases a machine id, and so
  // before the host lock that the first start of each store, all on 924, would contend for):
  // side by side.
  it.concurrent.for(COORDINATORS)(
    'without init, a first vesta rest on a new %s store logs its era wait when it begins',
    async ([, url], { expect }) => {
      const server = rest(url(), 'first');
      expect(
        await eventually(() => server.stdout().some((line) => line.includes(ERA_WAIT)), 30_000),
      ).toBe(true);
      const line = JSON.parse(server.stdout().find((l) => l.includes(ERA_WAIT)) ?? '{}') as {
        waitMs?: unknown;
      };
      expect(line.waitMs).toBeGreaterThan(0);
      await server.stop('SIGKILL');
    },
  );

  it('names init in the help of vesta machine-ids, with its warning', async () => {
    const help = await machineIds(['init', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Only for a store you know is new');
    expect(help.stdout).toContain('COORDINATOR_NOT_NEW');
  });
});
