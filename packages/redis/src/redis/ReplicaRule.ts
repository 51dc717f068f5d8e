import type { Logger } from '@vesta/core';
import type { RedisConnection } from './RedisConnection.js';

/**
 * How many replicas must acknowledge a start's claim and renewals (`minReplicas`). Set, that
 * many. Unset, one for a primary found through Sentinel (a failover is what Sentinel is for,
 * even while its replicas are momentarily disconnected), and for another from the first time it
 * reports an online replica; never fewer afterwards: a replica that went quiet is one a
 * failover could promote without this lease's latest writes, so the lease fences rather than
 * trust the primary alone.
 */
export class ReplicaRule {
  readonly #conn: RedisConnection;
  readonly #set: number | undefined;
  #needed: number;
  #logger: Logger | undefined;
  #infoRefused = false;

  readonly #waitMs: number;

  /**
   * `waitMs`: how long a `WAIT` may take; within half the request deadline and one renewal
   * interval (a renewal slower than two turns would be given up by its loop every time).
   */
  constructor(conn: RedisConnection, minReplicas: number | undefined, waitMs: number) {
    this.#conn = conn;
    this.#waitMs = waitMs;
    this.#set = minReplicas;
    this.#needed = minReplicas ?? (conn.target.sentinel ? 1 : 0);
  }

  /** The acknowledgements each write waits for now. */
  get needed(): number {
    return this.#needed;
  }

  /**
   * At start: reads the primary's replicas. An explicit `minReplicas: 0` gets a warning naming
   * the window a failover opens (left unset, a primary without replicas needs none).
   */
  async start(logger: Logger, fenceAfterMs: number): Promise<void> {
    const conn = this.#conn;
    this.#logger = logger;
    const replicas = await this.#replicas();
    if (this.#set === undefined) {
      this.#raise(replicas);
      if (this.#needed > 0) {
        logger.info(
          { coordinator: 'redis', onlineReplicas: replicas, minReplicas: this.#needed },
          `the Redis primary has ${replicas} online replica(s)${conn.target.sentinel ? " and is Sentinel's" : ''}: each claim and renewal waits for one to acknowledge it`,
        );
      }
    } else if (this.#set === 0) {
      logger.warn(
        { coordinator: 'redis', onlineReplicas: replicas, minReplicas: 0, fenceAfterMs },
        `minReplicas=0: claims and renewals count once the Redis primary has them. A failover to a replica that missed the latest of them can give this instance's machine id to another start while this one still issues, for up to fenceAfterMs (${fenceAfterMs} ms): duplicate ids. Leave minReplicas unset to wait for a replica's acknowledgement`,
      );
    }
  }

  /** Before a renewal: an unset rule that needs no replica yet looks at the primary again. */
  async refresh(): Promise<void> {
    if (this.#set === undefined && this.#needed === 0) {
      this.#raise(await this.#replicas());
    }
  }

  /**
   * The primary's online replicas; 0 when `INFO` is refused (an ACL without `@dangerous`): then
   * an explicit `minReplicas` still holds, and an unset one needs none outside Sentinel (said once).
   */
  async #replicas(): Promise<number> {
    try {
      return await this.#conn.onlineReplicas();
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (!/NOPERM|no permissions/i.test(text)) throw error;
      if (!this.#infoRefused) {
        this.#infoRefused = true;
        this.#logger?.warn(
          { coordinator: 'redis', error: text },
          "Redis refused INFO (ACL): the primary's replicas are not counted; set minReplicas to wait for their acknowledgements",
        );
      }
      return 0;
    }
  }

  /**
   * Waits for the replicas this rule needs to acknowledge the connection's writes; undefined when
   * enough did, else what happened, for a message about `what` (`the claim of machine id 7`).
   */
  async shortfall(what: string): Promise<string | undefined> {
    const needed = this.#needed;
    if (needed === 0) return undefined;
    const { acked, waitedMs } = await this.#conn.replicated(needed, this.#waitMs);
    if (acked >= needed) return undefined;
    const why = this.#conn.target.sentinel ? "is Sentinel's" : 'had a replica';
    return `${acked} of the ${needed} Redis replica(s) minReplicas needs acknowledged ${what} within ${waitedMs} ms${this.#set === undefined ? ` (minReplicas is 1 because the primary ${why})` : ''}`;
  }

  #raise(replicas: number): void {
    if (replicas > 0) this.#needed = Math.max(this.#needed, 1);
  }
}
