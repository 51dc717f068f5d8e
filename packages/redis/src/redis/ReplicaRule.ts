import type { Logger } from '@vesta/core';
import type { RedisConnection } from './RedisConnection.js';

/**
 * How many replicas must acknowledge a start's claim and renewals (`minReplicas`). Set, that
 * many. Unset, one for a primary found through Sentinel (a failover is what Sentinel is for,
 * even while its replicas are momentarily disconnected), and for another from the first time it
 * reports a connected replica; never fewer afterwards: a replica that went quiet is one a
 * failover could promote without this lease's latest writes, so the lease fences rather than
 * trust the primary alone.
 */
export class ReplicaRule {
  readonly #conn: RedisConnection;
  readonly #set: number | undefined;
  #needed: number;

  constructor(conn: RedisConnection, minReplicas: number | undefined) {
    this.#conn = conn;
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
    const replicas = await this.#conn.connectedReplicas();
    if (this.#set === undefined) {
      this.#raise(replicas);
      if (this.#needed > 0) {
        logger.info(
          { coordinator: 'redis', connectedReplicas: replicas, minReplicas: this.#needed },
          `the Redis primary has ${replicas} connected replica(s)${conn.target.sentinel ? " and is Sentinel's" : ''}: each claim and renewal waits for one to acknowledge it`,
        );
      }
    } else if (this.#set === 0) {
      logger.warn(
        { coordinator: 'redis', connectedReplicas: replicas, minReplicas: 0, fenceAfterMs },
        `minReplicas=0: claims and renewals count once the Redis primary has them. A failover to a replica that missed the latest of them can give this instance's machine id to another start while this one still issues, for up to fenceAfterMs (${fenceAfterMs} ms): duplicate ids. Leave minReplicas unset to wait for a replica's acknowledgement`,
      );
    }
  }

  /** Before a renewal: an unset rule that needs no replica yet looks at the primary again. */
  async refresh(): Promise<void> {
    if (this.#set === undefined && this.#needed === 0) {
      this.#raise(await this.#conn.connectedReplicas());
    }
  }

  /**
   * Waits for the replicas this rule needs to acknowledge the connection's writes; undefined when
   * enough did, else what happened, for a message about `what` (`the claim of machine id 7`).
   */
  async shortfall(what: string): Promise<string | undefined> {
    const needed = this.#needed;
    if (needed === 0) return undefined;
    const { acked, waitedMs } = await this.#conn.replicated(needed);
    if (acked >= needed) return undefined;
    const why = this.#conn.target.sentinel ? "is Sentinel's" : 'had a replica';
    return `${acked} of the ${needed} Redis replica(s) minReplicas needs acknowledged ${what} within ${waitedMs} ms${this.#set === undefined ? ` (minReplicas is 1 because the primary ${why})` : ''}`;
  }

  #raise(replicas: number): void {
    if (replicas > 0) this.#needed = Math.max(this.#needed, 1);
  }
}
