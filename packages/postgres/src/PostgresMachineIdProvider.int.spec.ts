import { silentLogger } from '@vesta/core';
import { codeOfAsync, eventually, machineIdRequest } from '@vesta/testkit';
import { describeCachedLeaseStart } from '@vesta/testkit/conformance';
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
afterAll(() => db.end());

describeCachedLeaseStart({
  name: 'PostgreSQL',
  address: () => new URL(url).host,
  namespace: schema,
  createProvider: (address, namespace, settings) =>
    provider({ url: urlVia(address), schema: namespace, ...settings }),
  list: (namespace) => new PostgresAdmin({ url, schema: namespace }).list(),
  history: (namespace) => new PostgresAdmin({ url, schema: namespace }).history(),
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

  it('refuses with COORDINATOR_UNAVAILABLE when the claim cannot be journaled, handing out no lease', async () => {
    const ns = schema();
    // A history table the journal cannot write to: its entry column takes no JSON text.
    await db.query(`CREATE SCHEMA "${ns}"`);
    await db.query(
      `CREATE TABLE "${ns}".machine_ids_history (id bigserial PRIMARY KEY, entry int)`,
    );
    const unjournaled = provider({ schema: ns, key: 'unjournaled-1' });
    expect(await codeOfAsync(() => unjournaled.acquire(request))).toBe('COORDINATOR_UNAVAILABLE');
    // The claim is left to expire, as after any failed start; nothing was journaled.
    const rows = await new PostgresAdmin({ url, schema: ns }).list();
    expect(rows.map((r) => r.owner)).toEqual(['unjournaled-1']);
    expect(
      (await db.query(`SELECT count(*)::int AS n FROM "${ns}".machine_ids_history`)).rows,
    ).toEqual([{ n: 0 }]);
  });

  it('refuses a host clock further from the database’s than maxClockSkewMs (CLOCK_OUT_OF_SYNC)', async () => {
    const ahead = provider({ schema: schema(), clock: () => Date.now() + 60_000 });
    expect(await codeOfAsync(() => ahead.acquire(request))).toBe('CLOCK_OUT_OF_SYNC');
  });

  it('hands out no id of a truncated table before the holder is fenced, and the holder stops for good', async () => {
    const ns = schema();
    const timings = { refreshIntervalMs: 100, fenceAfterMs: 1500, reclaimAfterMs: 5000 };
    // One id for both: the newcomer can only take the holder's (claims spread over a range).
    const oneId = machineIdRequest({ min: 5, max: 5 });
    const holder = await provider({ schema: ns, key: 'holder', ...timings }).acquire(oneId);
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
    }).acquire(oneId);
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
});
