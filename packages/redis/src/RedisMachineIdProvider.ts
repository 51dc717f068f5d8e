import { hostname } from 'node:os';
import { VestaError } from '@vesta/core';
import { LeaseProvider, storeHold, type LeaseEraState, type LeaseStore } from '@vesta/lease';
import {
  resolveRedisMachineIdOptions,
  type RedisMachineIdOptions,
  type ResolvedRedisMachineIdOptions,
} from './RedisMachineIdOptions.js';
import { RedisConnection } from './redis/RedisConnection.js';
import { ReplicaRule } from './redis/ReplicaRule.js';
import { RedisLayout } from './redis/RedisLayout.js';
import { REDIS_SCRIPTS } from './redis/REDIS_SCRIPTS.js';
import { redisEraStore } from './redis/redisEraStore.js';
import { decodeRedisIdRecord, readRedisClaimSnapshot } from './redis/readRedisClaimSnapshot.js';
import { redisJournal } from './redis/redisJournal.js';

/**
 * Redis as a lease store: a claim round is one script reading the era, the live ids and the
 * records a claim plans on; a claim is one script that writes the record, the live key (PX
 * expiry) and the key mapping only while nothing changed. A start never runs on the cached
 * lease: a Redis that lost its data (a flush, a failover to a replica behind) cannot tell a
 * returning holder from a stranger, so the id is claimed again, after the era wait.
 */
function redisStore(o: ResolvedRedisMachineIdOptions): LeaseStore<LeaseEraState, true> {
  const L = new RedisLayout(o.prefix);
  return {
    coordinator: 'Redis',
    files: 'redis',
    address: o.target.where,
    root: o.prefix,
    eraLogFields: { prefix: o.prefix },
    pollMs: Math.min(250, o.leaseTtlMs / 4),
    startsFromCache: false,
    open(c) {
      const conn = new RedisConnection(o.target, o);
      const replicas = new ReplicaRule(
        conn,
        o.minReplicas,
        Math.max(1, Math.min(Math.floor(o.operationTimeoutMs / 2), o.refreshIntervalMs)),
      );
      return {
        connect: () => conn.connect(),
        prepare: () => replicas.start(o.logger, o.fenceAfterMs),
        readClock: () => conn.nowMs(),
        era: redisEraStore(conn, L.era),
        journal: redisJournal(conn, L, o.journalRetention),
        readRound: async (state, { era }) => {
          const read = await readRedisClaimSnapshot(conn, L, {
            ...state,
            key: c.key,
            stableKey: c.stableKey,
            range: c.request.range,
            reclaimAfterMs: o.reclaimAfterMs,
          });
          return {
            snapshot: read.snapshot,
            floorMarkMs: ({ machineId }) => read.records.get(machineId)?.markMs ?? 0,
            write: async ({ machineId }, markMs) => {
              const [outcome] = (await conn.eval(
                REDIS_SCRIPTS.claim,
                [L.era, L.id(machineId), L.live(machineId), L.ids, L.key(c.key)],
                [
                  era,
                  read.records.get(machineId)?.version ?? 0,
                  c.key,
                  c.instance,
                  markMs,
                  c.request.genMethod,
                  c.request.type,
                  hostname(),
                  process.pid,
                  o.leaseTtlMs,
                  machineId,
                  c.stableKey ? '1' : '0',
                ],
              )) as string[];
              if (outcome !== 'ok') return undefined;
              const short = await replicas.shortfall(`the claim of machine id ${machineId}`);
              if (short !== undefined) {
                // Withdrawn: a claim no replica has must not hold the id until its live key expires.
                await conn
                  .eval(
                    REDIS_SCRIPTS.release,
                    [L.era, L.id(machineId), L.live(machineId)],
                    [
                      era,
                      c.instance,
                      read.records.get(machineId)?.markMs ?? 0,
                      c.stableKey ? '1' : '0',
                    ],
                  )
                  .catch(() => undefined);
                throw new VestaError(
                  'COORDINATOR_UNAVAILABLE',
                  `${short}; the claim was withdrawn`,
                  { details: { machineId, minReplicas: replicas.needed, reason: 'replicas' } },
                );
              }
              return true;
            },
          };
        },
        // Each turn a script checks the era and that the record is still this instance's, raises
        // the mark and pushes the live key's expiry back; it counts once the replicas have it.
        hold: ({ machineId, floorMarkMs }, from) => {
          const keys = [L.era, L.id(machineId), L.live(machineId)];
          const era = redisEraStore(conn, L.era);
          return storeHold<true>(
            {
              renew: async (token, holding) => {
                const [outcome] = (await conn.eval(REDIS_SCRIPTS.renew, keys, [
                  token,
                  c.instance,
                  holding.markMs,
                  o.leaseTtlMs,
                ])) as string[];
                return outcome === 'ok' ? true : 'conflict';
              },
              read: async () => {
                const [found, hash, live] = await Promise.all([
                  era.readEra(),
                  conn.run((r) => r.hgetall(L.id(machineId))),
                  conn.run((r) => r.exists(L.live(machineId))),
                ]);
                const record = decodeRedisIdRecord(hash);
                return {
                  era: found,
                  record:
                    record === undefined
                      ? undefined
                      : { ...record, live: live === 1, version: true },
                };
              },
              counts: async () => {
                await replicas.refresh();
                return (await replicas.shortfall('a renewal')) === undefined;
              },
              // The final mark, the live key dropped; a keyless instance gives the id up.
              release: async (token, holding) => {
                const [outcome] = (await conn.eval(REDIS_SCRIPTS.release, keys, [
                  token,
                  c.instance,
                  holding.markMs,
                  holding.owner === null ? '0' : '1',
                ])) as string[];
                return outcome === 'ok';
              },
              close: () => conn.close(),
              // A connection that stopped answering (a black hole) never recovers on its own.
              reconnect: () => conn.reconnect(),
              quiet: 'COORDINATOR_UNAVAILABLE',
              closeOnLoss: true,
            },
            // startsFromCache is false: every lease here was claimed.
            {
              claimant: c,
              floorMarkMs,
              claimed: 'claimed' in from ? { era: from.claimed.era.era, version: true } : undefined,
            },
          );
        },
        close: () => conn.close(),
      };
    },
  };
}

/**
 * Leases machine ids from Redis: atomic claims in Lua scripts, a live key with PX expiry renewed
 * by the holder, the same id for the same key, dead owners' ids reclaimed after a delay with their
 * time marks carried over, and an era key so that a flushed Redis hands out nothing before every
 * old holder has fenced itself. See the package README, including what Redis does not guarantee.
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   machineIdProvider: new RedisMachineIdProvider({ url: 'redis://redis:6379', key: 'orders-7' }),
 * });
 */
export class RedisMachineIdProvider extends LeaseProvider<LeaseEraState, true> {
  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: RedisMachineIdOptions) {
    const o = resolveRedisMachineIdOptions(options);
    super(redisStore(o), o);
  }
}
