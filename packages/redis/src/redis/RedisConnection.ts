import { Redis } from 'ioredis';
import { VestaError } from '@vesta/core';
import { withDeadline } from '@vesta/lease';

/** The deadlines of a connection. */
export interface RedisDeadlines {
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
}

/**
 * One ioredis connection with a deadline on every request (ioredis would otherwise queue a request
 * while it reconnects, forever), and a way out of a connection that stopped answering.
 */
export class RedisConnection {
  readonly redis: Redis;
  readonly #url: string;
  readonly #deadlines: RedisDeadlines;

  constructor(url: string, deadlines: RedisDeadlines) {
    this.#url = url;
    this.#deadlines = deadlines;
    this.redis = new Redis(url, {
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

  /** Waits for `replicas` replicas to acknowledge this connection's writes; false when fewer did. */
  async replicated(replicas: number): Promise<boolean> {
    if (replicas === 0) return true;
    const acked = await this.run((r) => r.wait(replicas, this.#deadlines.operationTimeoutMs));
    return acked >= replicas;
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
    const where = new URL(this.#url).host;
    return new VestaError(
      'COORDINATOR_UNAVAILABLE',
      `Redis at ${where} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause, details: { coordinator: 'redis', host: where } },
    );
  }
}
