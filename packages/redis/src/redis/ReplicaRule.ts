import type { ResolvedRedisMachineIdOptions } from '../RedisMachineIdOptions.js';
import type { RedisConnection } from './RedisConnection.js';

/**
 * How many replicas must acknowledge (`WAIT`) a start's claim and renewals. `minReplicas` set:
 * that many. Unset: one for a primary found through Sentinel, and for another from the first
 * time it reports an online replica; never fewer afterwards (a replica gone quiet could be
 * promoted without this lease's latest writes, so the lease fences rather than trust the primary).
 */
export class ReplicaRule {
  readonly set: number | undefined;
  /** How long a `WAIT` may take: within half the request deadline and one renewal interval. */
  readonly waitMs: number;
  #needed: number;
  #infoRefused = false;

  constructor(
    readonly conn: RedisConnection,
    readonly o: Pick<
      ResolvedRedisMachineIdOptions,
      'minReplicas' | 'operationTimeoutMs' | 'refreshIntervalMs' | 'logger' | 'fenceAfterMs'
    >,
  ) {
    this.set = o.minReplicas;
    this.waitMs = Math.max(1, Math.min(Math.floor(o.operationTimeoutMs / 2), o.refreshIntervalMs));
    this.#needed = o.minReplicas ?? (conn.target.sentinel ? 1 : 0);
  }

  get needed(): number {
    return this.#needed;
  }

  /** At start: reads the primary's replicas; an explicit 0 is warned about. */
  async start(): Promise<void> {
    const { logger, fenceAfterMs } = this.o;
    const replicas = await this.#replicas();
    if (this.set === undefined) {
      this.#raise(replicas);
      if (this.#needed > 0) {
        logger.info(
          { coordinator: 'redis', onlineReplicas: replicas, minReplicas: this.#needed },
          `the Redis primary has ${replicas} online replica(s)${this.conn.target.sentinel ? " and is Sentinel's" : ''}: each claim and renewal waits for one to acknowledge it`,
        );
      }
    } else if (this.set === 0) {
      logger.warn(
        { coordinator: 'redis', onlineReplicas: replicas, minReplicas: 0, fenceAfterMs },
        `minReplicas=0: claims and renewals count once the Redis primary has them. A failover to a replica that missed the latest of them can give this instance's machine id to another start while this one still issues, for up to fenceAfterMs (${fenceAfterMs} ms): duplicate ids. Leave minReplicas unset to wait for a replica's acknowledgement`,
      );
    }
  }

  /** Before a renewal: an unset rule that needs no replica yet looks at the primary again. */
  async refresh(): Promise<void> {
    if (this.set === undefined && this.#needed === 0) this.#raise(await this.#replicas());
  }

  /**
   * The primary's replicas `INFO` reports online (one still syncing, or `redis-cli --rdb`, is no
   * replica a failover promotes with the latest writes); 0 when an ACL refuses `INFO` (said once).
   */
  async #replicas(): Promise<number> {
    try {
      const info = await this.conn.run((r) => r.info('replication'));
      return info.split(/\r?\n/).filter((l) => /^slave\d+:.*\bstate=online\b/.test(l)).length;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (!/NOPERM|no permissions/i.test(text)) throw error;
      if (!this.#infoRefused) {
        this.#infoRefused = true;
        this.o.logger.warn(
          { coordinator: 'redis', error: text },
          "Redis refused INFO (ACL): the primary's replicas are not counted; set minReplicas to wait for their acknowledgements",
        );
      }
      return 0;
    }
  }

  /** Waits for the replicas needed to acknowledge the connection's writes; else what happened to `what`. */
  async shortfall(what: string): Promise<string | undefined> {
    const needed = this.#needed;
    if (needed === 0) return undefined;
    const acked = await this.conn.run((r) => r.wait(needed, this.waitMs));
    if (acked >= needed) return undefined;
    const why = this.conn.target.sentinel ? "is Sentinel's" : 'had a replica';
    return `${acked} of the ${needed} Redis replica(s) minReplicas needs acknowledged ${what} within ${this.waitMs} ms${this.set === undefined ? ` (minReplicas is 1 because the primary ${why})` : ''}`;
  }

  #raise(replicas: number): void {
    if (replicas > 0) this.#needed = Math.max(this.#needed, 1);
  }
}
