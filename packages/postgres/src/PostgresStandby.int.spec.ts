import { randomUUID } from 'node:crypto';
import { silentLogger } from '@vesta/core';
import {
  eventually,
  startFaultFleet,
  startPostgresServer,
  type PostgresServer,
} from '@vesta/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';

const started: PostgresServer[] = [];
afterAll(async () => {
  for (const server of started.reverse()) await server.dispose().catch(() => undefined);
});

describe('PostgreSQL, a primary and a synchronous standby', () => {
  it('keeps every holder on its id through the primary killed and the standby promoted, a newcomer on another, no id twice', async () => {
    const primary = await startPostgresServer();
    started.push(primary);
    const standby = await startPostgresServer({ standbyOf: primary });
    started.push(standby);
    // The documented setting: a commit returns once the standby has it.
    await primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'");
    await primary.sql('SELECT pg_reload_conf()');
    const sync = async (): Promise<boolean> =>
      (await primary.sql('SELECT sync_state FROM pg_stat_replication')) === 'sync';
    expect(await eventually(sync, 30_000)).toBe(true);

    const url = `postgres://vesta@${primary.address},${standby.address}/vesta?schema=s${randomUUID().slice(0, 8)}`;
    const provider = (key: string) =>
      new PostgresMachineIdProvider({
        url,
        key,
        refreshIntervalMs: 500,
        fenceAfterMs: 3000,
        connectTimeoutMs: 2000,
        operationTimeoutMs: 2000,
        eraWaitMs: 0,
        logger: silentLogger,
      });
    const fleet = await startFaultFleet([provider('a'), provider('b'), provider('c')]);
    try {
      const machines = fleet.services.map((s) => s.info().machine);
      expect(await eventually(() => fleet.loops.seen.size > 3000, 20_000)).toBe(true);

      await primary.stop({ kill: true });
      await standby.sql('SELECT pg_promote()');
      // The holders renew on the promoted standby: every acknowledged claim and mark is there.
      const issued = fleet.loops.seen.size;
      const back = async (): Promise<boolean> =>
        fleet.services.every((s) => s.health().ok) && fleet.loops.seen.size > issued + 3000;
      expect(await eventually(back, 30_000)).toBe(true);
      expect(fleet.services.map((s) => s.info().machine)).toEqual(machines);

      // A newcomer on the same URL finds the promoted server and takes another id.
      const newcomer = await startFaultFleet([provider('d')]);
      try {
        expect(machines).not.toContain(newcomer.services[0]?.info().machine);
        expect(await eventually(() => newcomer.loops.seen.size > 1000, 20_000)).toBe(true);
      } finally {
        await newcomer.stop();
      }
    } finally {
      await fleet.stop();
    }
    expect(fleet.loops.duplicates()).toBe(0);
  }, 120_000);
});
