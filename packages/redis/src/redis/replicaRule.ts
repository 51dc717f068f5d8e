import type { ResolvedRedisMachineIdOptions } from '../RedisMachineIdOptions.js';
import type { RedisKeyspace } from './RedisKeyspace.js';

/**
 * How many replicas must acknowledge (`WAIT`) a claim and each renewal: `minReplicas`, or unset
 * one for a primary Sentinel names and for another from the first time it reports an online
 * replica, never fewer afterwards (a replica gone quiet could be promoted without this lease's
 * latest writes, so the lease fences rather than trust the primary).
 */
export function replicaRule(ks: RedisKeyspace, o: ResolvedRedisMachineIdOptions) {
  const { logger, minReplicas: set, target } = o;
  const waitMs = Math.max(1, Math.min(Math.floor(o.operationTimeoutMs / 2), o.refreshIntervalMs));
  let needed = set ?? (target.sentinel ? 1 : 0);
  let infoRefused = false;
  const raise = (replicas: number) => (needed = replicas > 0 ? Math.max(needed, 1) : needed);
  // The replicas INFO reports online (not one still syncing); 0 when an ACL refuses INFO.
  const online = async (): Promise<number> => {
    try {
      const info = await ks.run((r) => r.info('replication'));
      return info.split(/\r?\n/).filter((l) => /^slave\d+:.*\bstate=online\b/.test(l)).length;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (!/NOPERM|no permissions/i.test(text)) throw error;
      if (!infoRefused) {
        logger.warn(
          { coordinator: 'redis', error: text },
          "Redis refused INFO (ACL): the primary's replicas are not counted; set minReplicas to wait for their acknowledgements",
        );
      }
      infoRefused = true;
      return 0;
    }
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
      } else if (set === undefined && raise(replicas) > 0) {
        logger.info(
          { ...fields, minReplicas: needed },
          `the Redis primary has ${replicas} online replica(s)${target.sentinel ? " and is Sentinel's" : ''}: each claim and renewal waits for one to acknowledge it`,
        );
      }
    },
    /** Before a renewal: an unset rule that needs no replica yet looks at the primary again. */
    async refresh(): Promise<void> {
      if (set === undefined && needed === 0) raise(await online());
    },
    /** Waits for the replicas to acknowledge the connection's writes; else what happened to `what`. */
    async shortfall(what: string): Promise<string | undefined> {
      const n = needed;
      const acked = n === 0 ? 0 : await ks.run((r) => r.wait(n, waitMs));
      if (acked >= n) return undefined;
      const why = target.sentinel ? "is Sentinel's" : 'had a replica';
      const unset = set === undefined ? ` (minReplicas is 1 because the primary ${why})` : '';
      return `${acked} of the ${n} Redis replica(s) minReplicas needs acknowledged ${what} within ${waitMs} ms${unset}`;
    },
  };
}
