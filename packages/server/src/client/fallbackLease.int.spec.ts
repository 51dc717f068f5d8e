import { randomUUID } from 'node:crypto';
import { StaticMachineIdProvider, silentLogger } from '@vesta/core';
import { RedisAdmin, RedisMachineIdProvider, type RedisMachineIdOptions } from '@vesta/redis';
import {
  capturingLogger,
  codeOfAsync,
  eventually,
  freePort,
  rejection,
  startRedisServer,
  type RedisServer,
} from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdClient } from './IdClient.js';
import type { IdClientOptions } from './IdClientOptions.js';
import { useServerFixtures } from '../testing/useServerFixtures.js';

const { client } = useServerFixtures();
let redis: RedisServer;
/** A port nothing listens on: no id server answers. */
let nobody: string;

beforeAll(async () => {
  redis = await startRedisServer();
  nobody = `127.0.0.1:${await freePort()}`;
});
afterAll(async () => {
  await redis?.stop();
});

/** A provider of a fleet of its own (a new prefix), renewing fast so that a loss shows soon. */
function provider(prefix: string, extra: Partial<RedisMachineIdOptions> = {}) {
  return new RedisMachineIdProvider({
    url: redis.url,
    prefix,
    // A Redis started for these tests holds nothing from an earlier holder.
    eraWaitMs: 0,
    refreshIntervalMs: 100,
    fenceAfterMs: 400,
    logger: silentLogger,
    ...extra,
  });
}

describe('a client fallback with a machine id leased from a coordinator', () => {
  it('leases its machine id when the client starts, issues under it, and releases it at close', async () => {
    const prefix = `fallback-${randomUUID()}`;
    const admin = new RedisAdmin({ url: redis.url, prefix });
    const ids = await createIdClient({
      servers: [nobody],
      logger: silentLogger,
      fallback: { machineIdProvider: provider(prefix) },
    });
    const machine = ids.info().machine;
    expect(await admin.list()).toMatchObject([{ machineId: machine, alive: true }]);
    const issued = await ids.genIds(100);
    expect(new Set(issued.map((id) => ids.expId(id).machine))).toEqual(new Set([machine]));
    expect(ids.info().mode).toBe('fallback');
    await ids.close();
    expect(await admin.list()).toMatchObject([{ machineId: machine, alive: false, owner: null }]);
  });

  it('stops issuing with MACHINE_ID_LEASE_LOST once its lease is lost', async () => {
    const prefix = `fallback-${randomUUID()}`;
    const ids = await client({
      servers: [nobody],
      fallback: { machineIdProvider: provider(prefix) },
    });
    await ids.genId();
    // An operator's forced release: the holder finds it gone at its next renewal.
    await new RedisAdmin({ url: redis.url, prefix }).release(ids.info().machine, { force: true });
    const fenced = await eventually(
      async () => (await codeOfAsync(() => ids.genId())) === 'MACHINE_ID_LEASE_LOST',
      5_000,
    );
    expect(fenced).toBe(true);
    expect(await codeOfAsync(() => ids.genIds(10))).toBe('MACHINE_ID_LEASE_LOST');
    expect(ids.health()).toMatchObject({ ok: false, code: 'MACHINE_ID_LEASE_LOST' });
  });

  it('does not start when the coordinator of its fallback cannot be reached', async () => {
    const error = await rejection(
      createIdClient({
        servers: [nobody],
        logger: silentLogger,
        fallback: {
          machineIdProvider: provider('unreachable', {
            url: `redis://${nobody}`,
            connectTimeoutMs: 200,
          }),
        },
      }),
    );
    expect(error.code).toBe('COORDINATOR_UNAVAILABLE');
  });

  it.each<[string, IdClientOptions['fallback']]>([
    ['a fixed machineId', { machineId: 61 }],
    ['a StaticMachineIdProvider', { machineIdProvider: new StaticMachineIdProvider(62) }],
  ])(
    'warns at start that clients on several hosts would repeat ids, on %s',
    async (_, fallback) => {
      const logger = capturingLogger();
      await client({ servers: [nobody], logger, fallback });
      const warning = logger.warnings.find((w) => w.message.includes('fixed machine id'));
      expect(warning?.message).toContain('several hosts');
      expect(warning?.message).toContain('machineIdProvider');
      expect(warning?.fields).toMatchObject({ machineId: fallback?.machineId ?? 62 });
    },
  );

  it('does not warn of a fixed machine id when the id is leased', async () => {
    const logger = capturingLogger();
    await client({
      servers: [nobody],
      logger,
      fallback: { machineIdProvider: provider(`fallback-${randomUUID()}`) },
    });
    expect(logger.warnings.map((w) => w.message).join('\n')).not.toContain('fixed machine id');
  });

  it.each([
    ['neither machineId nor machineIdProvider', () => ({})],
    [
      'both machineId and machineIdProvider',
      () => ({ machineId: 1, machineIdProvider: provider('x') }),
    ],
  ])('refuses a fallback with %s before connecting (INVALID_OPTIONS)', async (_, fallback) => {
    const error = await rejection(
      createIdClient({ servers: [nobody], logger: silentLogger, fallback: fallback() }),
    );
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain('one of machineId and machineIdProvider');
  });
});
