import { Redis } from 'ioredis';
import { VestaError } from '@vesta/core';
import { withDeadline } from '@vesta/lease';
import type { RedisTarget } from './redisTarget.js';

/**
 * One ioredis connection (to a host, or to the primary Sentinel names) with a deadline on every
 * request: ioredis would otherwise queue a request while it reconnects, forever.
 */
export class RedisConnection {
  readonly redis: Redis;

  constructor(
    readonly target: RedisTarget,
    readonly deadlines: { readonly connectTimeoutMs: number; readonly operationTimeoutMs: number },
  ) {
    this.redis = new Redis({
      ...target.client,
      lazyConnect: true,
      connectTimeout: deadlines.connectTimeoutMs,
      maxRetriesPerRequest: 1,
      retryStrategy: (times) => Math.min(50 * times, 500),
      enableReadyCheck: true,
    });
    // Failures surface through the requests.
    this.redis.on('error', () => undefined);
  }

  /** Connects within the connect deadline; COORDINATOR_UNAVAILABLE otherwise. */
  async connect(): Promise<void> {
    try {
      await this.#deadline(this.redis.connect(), this.deadlines.connectTimeoutMs, 'connect');
    } catch (error) {
      this.close();
      throw this.#unavailable(error);
    }
  }

  /** Runs a request under the operation deadline; COORDINATOR_UNAVAILABLE otherwise. */
  async run<T>(request: (redis: Redis) => Promise<T>): Promise<T> {
    try {
      return await this.#deadline(request(this.redis), this.deadlines.operationTimeoutMs, 'answer');
    } catch (error) {
      throw this.#unavailable(error);
    }
  }

  eval(script: string, keys: readonly string[], args: readonly (string | number)[]) {
    return this.run((r) => r.eval(script, keys.length, ...keys, ...args.map(String)));
  }

  /** Redis's clock (Unix ms). */
  async nowMs(): Promise<number> {
    const [s, us] = await this.run((r) => r.time());
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
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
