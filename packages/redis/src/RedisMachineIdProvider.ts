import { VestaError } from '@vesta/core';
import { LeaseProvider, type HoldVerbs, type LeaseEraState, type LeaseStore } from '@vesta/lease';
import { redisOptions, type RedisMachineIdOptions } from './RedisMachineIdOptions.js';
import type { ResolvedRedisMachineIdOptions as Resolved } from './RedisMachineIdOptions.js';
import { RedisKeyspace } from './RedisKeyspace.js';

const INFO_REFUSED =
  "Redis refused INFO (ACL): the primary's replicas are not counted; set minReplicas to wait for their acknowledgements";

// How many replicas must acknowledge (`WAIT`) each write: `minReplicas`, else 1 once the primary
// is Sentinel's or reported one online, never fewer after (a quiet one could be promoted).
function replicaRule(ks: RedisKeyspace, o: Resolved) {
  const { logger, minReplicas: set, target } = o;
  const waitMs = Math.max(1, Math.min(Math.floor(o.operationTimeoutMs / 2), o.refreshIntervalMs));
  let [needed, infoRefused] = [set ?? (target.sentinel ? 1 : 0), false];
  // The replicas INFO reports online (not one still syncing); 0 when an ACL refuses INFO.
  const online = async (): Promise<number> => {
    const info = await ks
      .run((r) => r.info('replication'))
      .catch((error: unknown) => {
        const text = error instanceof Error ? error.message : String(error);
        if (!/NOPERM|no permissions/i.test(text)) throw error;
        if (!infoRefused) logger.warn({ coordinator: 'redis', error: text }, INFO_REFUSED);
        infoRefused = true;
        return '';
      });
    const replicas = info.match(/^slave\d+:.*\bstate=online\b/gm)?.length ?? 0;
    if (set === undefined && replicas > 0) needed = Math.max(needed, 1);
    return replicas;
  };
  return {
    needed: () => needed,
    async start(): Promise<void> {
      const [ms, replicas] = [o.fenceAfterMs, await online()];
      const fields = { coordinator: 'redis', onlineReplicas: replicas };
      if (set === 0) {
        logger.warn(
          { ...fields, minReplicas: 0, fenceAfterMs: ms },
          `minReplicas=0: claims and renewals count once the Redis primary has them. A failover to a replica that missed the latest of them can give this instance's machine id to another start while this one still issues, for up to fenceAfterMs (${ms} ms): duplicate ids. Leave minReplicas unset to wait for a replica's acknowledgement`,
        );
      } else if (set === undefined && needed > 0) {
        logger.info(
          { ...fields, minReplicas: needed },
          `the Redis primary has ${replicas} online replica(s)${target.sentinel ? " and is Sentinel's" : ''}: each claim and renewal waits for one to acknowledge it`,
        );
      }
    },
    /** What the replicas did not acknowledge of `what`; `look` (a renewal) counts them again. */
    async shortfall(what: string, look = false): Promise<string | undefined> {
      if (look && set === undefined && needed === 0) await online();
      const n = needed;
      const acked = n === 0 ? 0 : await ks.run((r) => r.wait(n, waitMs));
      if (acked >= n) return undefined;
      const why = target.sentinel ? "is Sentinel's" : 'had a replica';
      const unset = set === undefined ? ` (minReplicas is 1 because the primary ${why})` : '';
      return `${acked} of the ${n} Redis replica(s) minReplicas needs acknowledged ${what} within ${waitMs} ms${unset}`;
    },
  };
}

/** Redis as a lease store; never a start from the cache (a Redis that lost its data cannot tell a returning holder). */
function redisStore(o: Resolved): LeaseStore<LeaseEraState, true> {
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
      const release = (era: string, id: number, markMs: number, keepOwner: boolean) =>
        ks.ok('release', id, era, c.instance, markMs, keepOwner);
      return {
        connect: () => ks.connect(),
        prepare: () => replicas.start(),
        readClock: () => ks.nowMs(),
        era: ks.eraStore,
        journal: { append: (entry) => ks.append(entry, o.journalRetention) },
        readRound: async (_, { era }) => {
          const { min, max } = c.request.range;
          const { ownId, rows } = await ks.readClaimRows(c.key, min, max);
          return {
            rows,
            ownId,
            write: async ({ machineId }, mark) => {
              const was = rows.find((r) => r.machineId === machineId)?.record;
              if (!(await ks.claim(era, machineId, was?.version ?? 0, c, mark))) return undefined;
              const short = await replicas.shortfall(`the claim of machine id ${machineId}`);
              if (short === undefined) return true;
              // A claim no replica has must not hold the id until its live key expires.
              await release(era, machineId, was?.markMs ?? 0, c.stableKey).catch(() => undefined);
              throw new VestaError('COORDINATOR_UNAVAILABLE', `${short}; the claim was withdrawn`, {
                details: { machineId, minReplicas: replicas.needed(), reason: 'replicas' },
              });
            },
          };
        },
        hold: (machineId): HoldVerbs<true> => ({
          renew: async ({ era }, { markMs }) =>
            (await ks.ok('renew', machineId, era, c.instance, markMs, o.leaseTtlMs)) || 'conflict',
          read: async () => {
            const [era, [row]] = await Promise.all([ks.eraStore.readEra(), ks.read(machineId)]);
            return { era, record: row?.record && { ...row.record, live: row.live, version: true } };
          },
          counts: async () => (await replicas.shortfall('a renewal', true)) === undefined,
          release: ({ era }, h) => release(era, machineId, h.markMs, h.owner !== null),
          close: ks.close,
          // A connection that stopped answering (a black hole) never recovers on its own.
          reconnect: ks.reconnect,
          quiet: 'COORDINATOR_UNAVAILABLE',
          closeOnLoss: true,
        }),
        close: ks.close,
      };
    },
  };
}

/** Leases machine ids from Redis; see the README, including what Redis does not guarantee. */
export class RedisMachineIdProvider extends LeaseProvider<LeaseEraState, true> {
  /** Validates the options (INVALID_OPTIONS); connects only on {@link acquire}. */
  constructor(options: RedisMachineIdOptions) {
    const o = redisOptions.resolve(options) as Resolved;
    super(redisStore(o), o);
  }
}
