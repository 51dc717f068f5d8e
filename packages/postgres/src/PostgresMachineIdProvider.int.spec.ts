import { silentLogger } from '@vesta/core';
import { codeOfAsync, eventually, machineIdRequest, TestResources } from '@vesta/testkit';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PostgresAdmin } from './PostgresAdmin.js';
import type { PostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
import { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';

const url = inject('postgresUrl');
const request = machineIdRequest();
const FAST = {
  refreshIntervalMs: 50,
  fenceAfterMs: 300,
  reclaimAfterMs: 1000,
  eraWaitMs: 0,
} as const;
let schemas = 0;
const schema = (): string => `spec_${process.pid}_${++schemas}`;
const provider = (extra: Partial<PostgresMachineIdOptions> & { schema: string }) =>
  new PostgresMachineIdProvider({ url, logger: silentLogger, ...FAST, ...extra });
const urlVia = (address: string): string => {
  const u = new URL(url);
  u.host = address;
  return u.toString();
};

const db = new pg.Pool({ connectionString: url, max: 1 });
const resources = new TestResources();
afterAll(async () => {
  await db.end();
  await resources.dispose();
});

describe('PostgresMachineIdProvider', () => {
  it('creates its table in the schema given and hands out ids that are reused per key', async () => {
    const ns = schema();
    const leases = await Promise.all(
      [0, 1, 2, 3, 4].map((i) => provider({ schema: ns, key: `k${i}` }).acquire(request)),
    );
    expect(new Set(leases.map((l) => l.machineId)).size).toBe(5);
    await leases[2]?.release();
    const again = provider({ schema: ns, key: 'k2' });
    const lease = await again.acquire(request);
    expect(lease.machineId).toBe(leases[2]?.machineId);
    expect(again.stats.reused).toBe(1);
    const rows = await new PostgresAdmin({ url, schema: ns }).list();
    expect(rows.filter((r) => r.alive)).toHaveLength(5);
    await Promise.all([...leases, lease].map((l) => l.release()));
  });

  it('refuses a host clock further from the database’s than maxClockSkewMs (CLOCK_OUT_OF_SYNC)', async () => {
    const ahead = provider({ schema: schema(), clock: () => Date.now() + 60_000 });
    expect(await codeOfAsync(() => ahead.acquire(request))).toBe('CLOCK_OUT_OF_SYNC');
  });

  it('hands out no id of a truncated table before the holder is fenced, and the holder stops for good', async () => {
    const ns = schema();
    const timings = { refreshIntervalMs: 100, fenceAfterMs: 1500, reclaimAfterMs: 5000 };
    const holder = await provider({ schema: ns, key: 'holder', ...timings }).acquire(request);
    expect(await eventually(() => holder.stats.renewals > 0)).toBe(true);
    await db.query(`TRUNCATE "${ns}".machine_ids`);
    const startedAt = performance.now();
    // The default era wait: fence + 2 × skew + 1 s.
    const newcomer = await new PostgresMachineIdProvider({
      url,
      schema: ns,
      key: 'newcomer',
      logger: silentLogger,
      ...timings,
      maxClockSkewMs: 100,
    }).acquire(request);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(1500 + 200 + 1000);
    expect(newcomer.machineId).toBe(holder.machineId);
    expect(holder.valid).toBe(false);
    expect(await eventually(() => holder.lost)).toBe(true);
    expect(() => holder.assertValid()).toThrow(/no longer held/);
    const rows = await new PostgresAdmin({ url, schema: ns }).list();
    expect(rows.map((r) => [r.machineId, r.owner, r.alive])).toEqual([
      [newcomer.machineId, 'newcomer', true],
    ]);
    await Promise.all([holder.release(), newcomer.release()]);
  });

  it('starts on the cached lease while PostgreSQL is unreachable, and confirms it once it is back', async () => {
    const ns = schema();
    const stateDir = resources.tempDir('vesta-pg-state-');
    // The cache is good for reclaim − fence − skew after its confirmation.
    const timings = { stateDir, reclaimAfterMs: 10_000, maxClockSkewMs: 100 };
    const first = await provider({ schema: ns, ...timings }).acquire(request);
    expect(await eventually(() => first.stats.renewals > 0)).toBe(true);
    await first.release();

    const proxy = await resources.proxy(new URL(url).host);
    proxy.refuse();
    const cached = provider({
      schema: ns,
      ...timings,
      url: urlVia(proxy.address),
      connectTimeoutMs: 200,
    });
    const lease = await cached.acquire(request);
    expect(lease.machineId).toBe(first.machineId);
    expect(cached.stats.fromCache).toBe(1);
    expect(lease.valid).toBe(true);
    expect(lease.stats.renewals).toBe(0);

    proxy.forward();
    expect(await eventually(() => lease.stats.renewals > 0)).toBe(true);
    expect(lease.valid).toBe(true);
    const [row] = await new PostgresAdmin({ url, schema: ns }).list();
    expect(row).toMatchObject({ machineId: first.machineId, alive: true });
    await lease.release();
  });

  it('refuses to start with COORDINATOR_UNAVAILABLE when PostgreSQL is unreachable and nothing is cached', async () => {
    const proxy = await resources.proxy(new URL(url).host);
    proxy.refuse();
    const p = provider({ schema: schema(), url: urlVia(proxy.address), connectTimeoutMs: 200 });
    expect(await codeOfAsync(() => p.acquire(request))).toBe('COORDINATOR_UNAVAILABLE');
  });
});
