import { VestaError } from '@vesta/core';
import { LeaseProvider, type HoldVerbs, type LeaseEraState, type LeaseStore } from '@vesta/lease';
import { redisOptions, type RedisMachineIdOptions } from './RedisMachineIdOptions.js';
import type { ResolvedRedisMachineIdOptions } from './RedisMachineIdOptions.js';
import { RedisKeyspace } from './redis/RedisKeyspace.js';
import { replicaRule } from './redis/replicaRule.js';

/**
 * Redis as a lease store. A start never runs on the cached lease: a Redis that lost its data
 * cannot tell a returning holder from a stranger, so the id is claimed again after the era wait.
 */
function redisStore(o: ResolvedRedisMachineIdOptions): LeaseStore<LeaseEraState, true> {
  return {
    coordinator: 'Redis',
    files: 'redis',
    address: o.target.where,
    root: o.prefix,
    eraLogFields: { prefix: o.prefix },
    pollMs: Math.min(250, o.leaseTtlMs / 4),
    startsFromCache: false,
    open(c) {
      const ks = new RedisKeyspace(o);
      const replicas = replicaRule(ks, o);
      return {
        connect: () => ks.connect(),
        prepare: () => replicas.start(),
        readClock: () => ks.nowMs(),
        era: ks.eraStore,
        journal: ks.journal(o.journalRetention),
        readRound: async (_, { era }) => {
          const { min, max } = c.request.range;
          const { ownId, rows, records } = await ks.readClaimRows(c.key, min, max);
          const floorMarkMs = (machineId: number) => records.get(machineId)?.markMs;
          return {
            rows,
            ownId,
            markMs: floorMarkMs,
            write: async ({ machineId }, markMs) => {
              const version = records.get(machineId)?.version ?? 0;
              if (!(await ks.claim(era, machineId, version, c, markMs))) return undefined;
              const short = await replicas.shortfall(`the claim of machine id ${machineId}`);
              if (short === undefined) return true;
              // A claim no replica has must not hold the id until its live key expires.
              await ks
                .release(era, machineId, c.instance, floorMarkMs(machineId) ?? 0, c.stableKey)
                .catch(() => undefined);
              throw new VestaError('COORDINATOR_UNAVAILABLE', `${short}; the claim was withdrawn`, {
                details: { machineId, minReplicas: replicas.needed(), reason: 'replicas' },
              });
            },
          };
        },
        hold: ({ machineId }): HoldVerbs<true> => ({
          renew: async (era, h) =>
            (await ks.renew(era, machineId, c.instance, h.markMs)) || 'conflict',
          read: async () => {
            const [era, { record, live }] = await Promise.all([
              ks.eraStore.readEra(),
              ks.read(machineId),
            ]);
            return { era, record: record && { ...record, live, version: true } };
          },
          // A renewal counts once the replicas have it.
          counts: async () => {
            await replicas.refresh();
            return (await replicas.shortfall('a renewal')) === undefined;
          },
          release: (era, h) => ks.release(era, machineId, c.instance, h.markMs, h.owner !== null),
          close: () => ks.close(),
          // A connection that stopped answering (a black hole) never recovers on its own.
          reconnect: () => ks.reconnect(),
          quiet: 'COORDINATOR_UNAVAILABLE',
          closeOnLoss: true,
        }),
        close: () => ks.close(),
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
    const o = redisOptions.resolve(options) as ResolvedRedisMachineIdOptions;
    super(redisStore(o), o);
  }
}
