import { Redis } from 'ioredis';
import { VestaError } from '@vesta/core';
import { withDeadline } from '@vesta/lease';
import type { RedisTarget } from './redisTarget.js';

/** The deadlines of a connection. */
export interface RedisDeadlines {
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
}

/** What a `WAIT` for replicas found. */
export interface Replication {
  /** The replicas that acknowledged. */
  readonly acked: number;
  /** How long the primary waited for them (ms). */
  readonly waitedMs: number;
}

/**
 * One ioredis connection (to a host, or to the primary Sentinel names) with a deadline on every
 * request (ioredis would otherwise queue a request while it reconnects, forever), and a way out
 * of a connection that stopped answering.
 */
export class RedisConnection {
  readonly redis: Redis;
  readonly target: RedisTarget;
  readonly #deadlines: RedisDeadlines;

  constructor(target: RedisTarget, deadlines: RedisDeadlines) {
    this.target = target;
    this.#deadlines = deadlines;
    this.redis = new Redis({
      ...target.client,
      lazyConnect: true,
      connectTimeout: deadlines.connectTimeoutMs,
      maxRetriesPerRequest: 1,
      retryStrategy: (times) => Math.min(50 * times, 500),
      enableReadyCheck: true,
    });
    // Failures surface through the requests; the client logs nothing on its own.
    this.redis.on('error', () => undefined);
  }

  /** Connects within the connect deadline; COORDINATOR_UNAVAILABLE otherwise. */
  async connect(): Promise<void> {
    try {
      await this.#deadline(this.redis.connect(), this.#deadlines.connectTimeoutMs, 'connect');
    } catch (error) {
      this.close();
      throw this.#unavailable(error);
    }
  }

  /** Runs a script; rejects with COORDINATOR_UNAVAILABLE after the operation deadline. */
  async eval(script: string, keys: readonly string[], args: readonly (string | number)[]) {
    return this.#op(this.redis.eval(script, keys.length, ...keys, ...args.map(String)));
  }

  /** Runs a request; rejects with COORDINATOR_UNAVAILABLE after the operation deadline. */
  async #op<T>(request: Promise<T>): Promise<T> {
    try {
      return await this.#deadline(request, this.#deadlines.operationTimeoutMs, 'answer');
    } catch (error) {
      throw this.#unavailable(error);
    }
  }

  /** Any request (a pipeline, a read) under the operation deadline. */
  run<T>(request: (redis: Redis) => Promise<T>): Promise<T> {
    return this.#op(request(this.redis));
  }

  /** Redis's clock (Unix ms). */
  async nowMs(): Promise<number> {
    const [s, us] = await this.run((r) => r.time());
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  }

  /**
   * The replicas the primary reports online (`INFO replication`'s `slaveN:...,state=online`): one
   * still syncing, or a tool taking a snapshot (`redis-cli --rdb`), is no replica a failover
   * promotes with the latest writes.
   */
  async onlineReplicas(): Promise<number> {
    const info = await this.run((r) => r.info('replication'));
    return info.split(/\r?\n/).filter((line) => /^slave\d+:.*\bstate=online\b/.test(line)).length;
  }

  /**
   * Waits up to `waitMs` for `replicas` replicas to acknowledge this connection's writes
   * (`WAIT`): a short answer says how many did, where a wait as long as the request deadline
   * would read as a primary that did not answer.
   */
  async replicated(replicas: number, waitMs: number): Promise<Replication> {
    if (replicas === 0) return { acked: 0, waitedMs: 0 };
    return { acked: await this.run((r) => r.wait(replicas, waitMs)), waitedMs: waitMs };
  }

  /** Drops the socket and connects again (a connection that stopped answering never recovers). */
  reconnect(): void {
    this.redis.disconnect(true);
  }

  close(): void {
    this.redis.disconnect(false);
  }

  #deadline<T>(request: Promise<T>, ms: number, what: string): Promise<T> {
    const late = (): Error => new Error(`Redis did not ${what} within ${ms} ms`);
    return withDeadline(request, ms, late, { unref: true });
  }

  #unavailable(cause: unknown): VestaError {
    if (VestaError.is(cause)) return cause;
    const where = this.target.where;
    return new VestaError(
      'COORDINATOR_UNAVAILABLE',
      `Redis at ${where} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause, details: { coordinator: 'redis', host: where } },
    );
  }
}
