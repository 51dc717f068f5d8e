import type { ResolvedRedisMachineIdOptions } from '../RedisMachineIdOptions.js';
import type { RedisKeyspace } from './RedisKeyspace.js';

/**
 * How many replicas must acknowledge (`WAIT`) a claim and each renewal: `minReplicas`, or unset
 * one for a primary Sentinel names and for another from the first time it reports an online
 * replica, never fewer afterwards (a replica gone quiet could be promoted without this lease's
 * latest writes, so the lease fences rather than trust the primary).
 */
export class ReplicaRule {
  /** Within half the request deadline and one renewal interval. */
  readonly waitMs: number;
  readonly #via: boolean;
  needed: number;
  #infoRefused = false;

  constructor(
    readonly ks: RedisKeyspace,
    readonly o: ResolvedRedisMachineIdOptions,
  ) {
    this.waitMs = Math.max(1, Math.min(Math.floor(o.operationTimeoutMs / 2), o.refreshIntervalMs));
    this.#via = o.target.sentinel;
    this.needed = o.minReplicas ?? (this.#via ? 1 : 0);
  }

  /** At start: reads the primary's replicas; an explicit 0 is warned about. */
  async start(): Promise<void> {
    const [{ logger, fenceAfterMs: ms, minReplicas }, replicas] = [this.o, await this.#replicas()];
    const fields = { coordinator: 'redis', onlineReplicas: replicas };
    if (minReplicas === 0) {
      logger.warn(
        { ...fields, minReplicas: 0, fenceAfterMs: ms },
        `minReplicas=0: claims and renewals count once the Redis primary has them. A failover to a replica that missed the latest of them can give this instance's machine id to another start while this one still issues, for up to fenceAfterMs (${ms} ms): duplicate ids. Leave minReplicas unset to wait for a replica's acknowledgement`,
      );
    } else if (minReplicas === undefined && this.#raise(replicas) > 0) {
      logger.info(
        { ...fields, minReplicas: this.needed },
        `the Redis primary has ${replicas} online replica(s)${this.#via ? " and is Sentinel's" : ''}: each claim and renewal waits for one to acknowledge it`,
      );
    }
  }

  /** Before a renewal: an unset rule that needs no replica yet looks at the primary again. */
  async refresh(): Promise<void> {
    if (this.o.minReplicas === undefined && this.needed === 0) this.#raise(await this.#replicas());
  }

  /** The replicas `INFO` reports online (not one still syncing); 0 when an ACL refuses `INFO`. */
  async #replicas(): Promise<number> {
    try {
      const info = await this.ks.run((r) => r.info('replication'));
      return info.split(/\r?\n/).filter((l) => /^slave\d+:.*\bstate=online\b/.test(l)).length;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (!/NOPERM|no permissions/i.test(text)) throw error;
      if (!this.#infoRefused) {
        this.o.logger.warn(
          { coordinator: 'redis', error: text },
          "Redis refused INFO (ACL): the primary's replicas are not counted; set minReplicas to wait for their acknowledgements",
        );
      }
      this.#infoRefused = true;
      return 0;
    }
  }

  /** Waits for the replicas needed to acknowledge the connection's writes; else what happened to `what`. */
  async shortfall(what: string): Promise<string | undefined> {
    const { needed, waitMs } = this;
    const acked = needed === 0 ? 0 : await this.ks.run((r) => r.wait(needed, waitMs));
    if (acked >= needed) return undefined;
    const why = this.#via ? "is Sentinel's" : 'had a replica';
    const unset = this.o.minReplicas === undefined;
    return `${acked} of the ${needed} Redis replica(s) minReplicas needs acknowledged ${what} within ${waitMs} ms${unset ? ` (minReplicas is 1 because the primary ${why})` : ''}`;
  }

  #raise(replicas: number): number {
    if (replicas > 0) this.needed = Math.max(this.needed, 1);
    return this.needed;
  }
}
