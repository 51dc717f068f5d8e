import { silentLogger, VestaError } from '@vesta/core';
import { codeOfAsync, eventually, machineIdRequest } from '@vesta/testkit';
import { describeCachedLeaseStart } from '@vesta/testkit/conformance';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PostgresAdmin } from './postgresCoordinator.js';
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

  it('needs the journal table’s privileges its README names: without them a start of an older deployment fails, with them it goes on', async () => {
    const ns = schema();
    const role = `vesta_app_${process.pid}_${schemas}`;
    // An older deployment: the allocation table made, no journal table, the app's user granted
    // what the table needed then.
    await (await provider({ schema: ns, key: 'setup' }).acquire(request)).release();
    await db.query(`DROP TABLE "${ns}".machine_ids_history`);
    await db.query(`CREATE ROLE ${role} LOGIN PASSWORD 'app'`);
    try {
      await db.query(`GRANT USAGE ON SCHEMA "${ns}" TO ${role}`);
      await db.query(`GRANT SELECT, INSERT, UPDATE ON "${ns}".machine_ids TO ${role}`);
      const asApp = new URL(url);
      asApp.username = role;
      asApp.password = 'app';
      const app = () => provider({ url: asApp.toString(), schema: ns, key: 'app-1' });
      const refused = await app()
        .acquire(request)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(VestaError.is(refused, 'COORDINATOR_UNAVAILABLE')).toBe(true);
      expect(String(refused)).toContain('permission denied');
      // The table made beforehand and the privileges granted, as the README says.
      await db.query(
        `CREATE TABLE "${ns}".machine_ids_history (id bigserial PRIMARY KEY, entry text NOT NULL)`,
      );
      await db.query(`GRANT SELECT, INSERT, DELETE ON "${ns}".machine_ids_history TO ${role}`);
      await db.query(`GRANT USAGE ON SEQUENCE "${ns}".machine_ids_history_id_seq TO ${role}`);
      const lease = await app().acquire(request);
      await lease.release();
      const { entries } = await new PostgresAdmin({ url, schema: ns }).history();
      expect(entries.map((e) => [e.holder, e.event])).toEqual([
        ['app-1', 'claimed'],
        ['app-1', 'released'],
      ]);
    } finally {
      await db.query(`DROP OWNED BY ${role}`);
      await db.query(`DROP ROLE ${role}`);
    }
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
