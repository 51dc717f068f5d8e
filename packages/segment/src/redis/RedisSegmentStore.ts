import { VestaError } from '@vesta/core';
import type { Redis } from 'ioredis';
import { checkSegmentKey, importOptional } from '@vesta/core/kit';
import { checkNewKey } from '../store/checkNewKey.js';
import { checkStep } from '../store/checkStep.js';
import type { SegmentClaim, SegmentRange } from '../store/SegmentRange.js';
import type {
  SegmentClaimRequest,
  SegmentKeyInfo,
  SegmentKeyOptions,
  SegmentStore,
} from '../store/SegmentStore.js';
import { segmentKeyRanOut } from '../store/segmentKeyRanOut.js';
import { storeUnavailable } from '../store/storeUnavailable.js';
import { unknownSegmentKey } from '../store/unknownSegmentKey.js';
import {
  resolveRedisSegmentStoreOptions,
  type RedisSegmentStoreOptions,
} from './RedisSegmentStoreOptions.js';
import { checkAppendOnly } from './checkAppendOnly.js';
import { SEGMENT_SCRIPTS } from './SEGMENT_SCRIPTS.js';

/** A number as the sorted set's members hold it: 20 digits, zero-padded (lexical = numeric order). */
const padded = (n: bigint): string => String(n).padStart(20, '0');

/**
 * A {@link SegmentStore} on Redis: per key a hash `{prefix}:segment:<key>` (`max`, `step`,
 * `updated`) and a sorted set `{prefix}:segment-free:<key>` of handed-back ranges; the set
 * `{prefix}:segment-keys` names every key. Each method is one Lua script: a claim pops the
 * lowest handed-back range at or above the floor, else `HINCRBY max step` (SEGMENT_SEQUENCE_OVERFLOW
 * when that would pass 2^63 - 1).
 *
 * @example
 * const store = new RedisSegmentStore({ url: 'redis://cache:6379' });
 * await store.createKey('order', { step: 1000 });
 */
export class RedisSegmentStore implements SegmentStore {
  readonly #o: ReturnType<typeof resolveRedisSegmentStoreOptions>;
  readonly #where: string;
  #redis: Promise<Redis> | undefined;
  #closed = false;

  constructor(options: RedisSegmentStoreOptions) {
    this.#o = resolveRedisSegmentStoreOptions(options);
    this.#where = this.#o.url === undefined ? 'the given connection' : new URL(this.#o.url).host;
  }

  async claim(key: string, request: SegmentClaimRequest = {}): Promise<SegmentClaim> {
    checkSegmentKey(key);
    const step = request.step === undefined ? '' : String(checkStep(request.step));
    const reply = (await this.#eval(SEGMENT_SCRIPTS.claim, key, [
      step,
      padded(request.minStart ?? 0n),
    ])) as [string, string, string, string?] | null;
    if (reply === null) throw unknownSegmentKey(key);
    if (reply[0] === 'ranOut') throw segmentKeyRanOut(key);
    if (reply[0] === 'free') {
      const [start, end] = reply[1].split(':') as [string, string];
      return {
        start: BigInt(start),
        end: BigInt(end),
        keyStep: Number(reply[2]),
        handedBack: true,
      };
    }
    const end = BigInt(reply[1]);
    return {
      start: end - BigInt(reply[2]),
      end,
      keyStep: Number(reply[3]),
      handedBack: false,
    };
  }

  async handBack(key: string, range: SegmentRange): Promise<void> {
    checkSegmentKey(key);
    if (range.end <= range.start) return;
    const reply = await this.#eval(SEGMENT_SCRIPTS.handBack, key, [
      `${padded(range.start)}:${padded(range.end)}`,
    ]);
    if (reply === null) throw unknownSegmentKey(key);
  }

  async createKey(key: string, options: SegmentKeyOptions): Promise<boolean> {
    const { step, start } = checkNewKey(key, options);
    const reply = await this.#eval(SEGMENT_SCRIPTS.createKey, key, [
      key,
      String(start),
      String(step),
    ]);
    return reply === 1;
  }

  async setStep(key: string, step: number): Promise<void> {
    checkSegmentKey(key);
    const reply = await this.#eval(SEGMENT_SCRIPTS.setStep, key, [String(checkStep(step))]);
    if (reply === null) throw unknownSegmentKey(key);
  }

  async keys(): Promise<SegmentKeyInfo[]> {
    const redis = await this.#connection();
    return this.#run(async () => {
      const names = (await redis.smembers(this.#keysSet())).sort();
      const pipeline = redis.pipeline();
      for (const name of names) pipeline.hmget(this.#hash(name), 'max', 'step');
      const rows = (await pipeline.exec()) ?? [];
      return names.flatMap((key, i) => {
        const [error, value] = rows[i] ?? [];
        if (error) throw error;
        const [max, step] = value as [string | null, string | null];
        return max === null || step === null ? [] : [{ key, max: BigInt(max), step: Number(step) }];
      });
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#o.redis !== undefined || this.#redis === undefined) return;
    const redis = await this.#redis.catch(() => undefined);
    redis?.disconnect(false);
  }

  #hash(key: string): string {
    return `{${this.#o.prefix}}:segment:${key}`;
  }

  #keysSet(): string {
    return `{${this.#o.prefix}}:segment-keys`;
  }

  async #eval(script: string, key: string, args: readonly string[]): Promise<unknown> {
    const redis = await this.#connection();
    return this.#run(() =>
      redis.eval(
        script,
        3,
        this.#hash(key),
        `{${this.#o.prefix}}:segment-free:${key}`,
        this.#keysSet(),
        ...args,
      ),
    );
  }

  /** Runs a request; COORDINATOR_UNAVAILABLE on any failure. */
  async #run<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.#unavailable(error);
    }
  }

  /**
   * The connection (opened on first use). Requests fail at once while it is down (no offline
   * queue: the engine serves from its buffer instead) and after `operationTimeoutMs`; it
   * reconnects on its own.
   */
  #connection(): Promise<Redis> {
    if (this.#closed)
      return Promise.reject(new VestaError('SERVICE_CLOSED', 'the segment store was closed'));
    this.#redis ??= (async () => {
      if (this.#o.redis !== undefined) {
        if (this.#o.requireAppendOnly) await checkAppendOnly(this.#o.redis, this.#where);
        return this.#o.redis;
      }
      const { Redis: RedisClient } = await importOptional(
        'ioredis',
        () => import('ioredis'),
        'RedisSegmentStore needs',
      );
      const redis = new RedisClient(this.#o.url as string, {
        lazyConnect: true,
        connectTimeout: this.#o.connectTimeoutMs,
        commandTimeout: this.#o.operationTimeoutMs,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        retryStrategy: (times) => Math.min(50 * times, 500),
      });
      // Failures surface through the requests.
      redis.on('error', () => undefined);
      // A client that never connected is let go: left alone it would reconnect for ever, out of
      // close()'s reach (the failed opening is forgotten, the next request makes a new one).
      try {
        await redis.connect();
        if (this.#o.requireAppendOnly) await checkAppendOnly(redis, this.#where);
      } catch (error) {
        redis.disconnect(false);
        throw error;
      }
      return redis;
    })();
    const opening = this.#redis;
    opening.catch(() => {
      if (this.#redis === opening) this.#redis = undefined;
    });
    return opening.catch((error: unknown) => {
      throw this.#unavailable(error);
    });
  }

  #unavailable(cause: unknown): VestaError {
    return storeUnavailable(`Redis at ${this.#where} failed`, cause, {
      coordinator: 'redis',
      host: this.#where,
    });
  }
}
