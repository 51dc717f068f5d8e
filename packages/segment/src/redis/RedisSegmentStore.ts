import { VestaError } from '@vesta/core';
import { defineOptions, importOptional, objectWith, wholeNumber } from '@vesta/core/kit';
import { coordinatorUrlOption } from '@vesta/lease';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import {
  ConnectedSegmentStore,
  segmentKeyRanOut,
  unknownSegmentKey,
  type SegmentClaimRequest,
  type SegmentKeyInfo,
  type SegmentRange,
} from '../store/SegmentStore.js';

const PREFIX = { error: 'must be letters, digits and . _ - : / (1 to 100)' };

/** The one declaration of {@link RedisSegmentStoreOptions}. */
export const redisSegmentStoreOptions = defineOptions('Redis segment store', {
  /** The Redis server, `redis://[[user]:password@]host:port[/db]` (`rediss://` for TLS); give `url` or `redis`. */
  url: coordinatorUrlOption(['redis', 'rediss'], 'redis://host:6379').optional(),
  /** An ioredis connection of the application's own (never closed by the store); give `url` or `redis`. */
  redis: objectWith<Redis>(
    'an ioredis Redis (eval, smembers, quit)',
    'eval',
    'smembers',
    'quit',
  ).optional(),
  /** The prefix of the store's keys (`{prefix}:segment:<key>`: one cluster slot). @default 'vesta' */
  prefix: z
    .string(PREFIX)
    .regex(/^[A-Za-z0-9._\-:/]{1,100}$/, PREFIX)
    .default('vesta'),
  /** Refuse a Redis without an append-only file (it forgets its ranges on a restart). @default true */
  requireAppendOnly: z.boolean({ error: 'must be true or false' }).default(true),
  /** How long connecting may take. @default 5000 */
  connectTimeoutMs: wholeNumber(1, 600_000).default(5000),
  /** The deadline of each request. @default 2000 */
  operationTimeoutMs: wholeNumber(1, 600_000).default(2000),
});

/** Options of {@link RedisSegmentStore}, as callers give them: see {@link redisSegmentStoreOptions} for each. */
export type RedisSegmentStoreOptions = Readonly<z.input<typeof redisSegmentStoreOptions.schema>>;

/**
 * KEYS[1] is the key's hash (`max`, `step`, `updated`), KEYS[2] its handed-back ranges (a sorted
 * set, scores 0, members `<start>:<end>` of 20 zero-padded digits: lexical order is numeric, and
 * no number goes through a Lua double), KEYS[3] the set of every key's name.
 */
const SEGMENT_SCRIPTS = {
  /**
   * ARGV: step ('' for the key's), the floor. Nil for an unknown key, else `{ 'free', member,
   * keyStep }`, `{ 'fresh', max, step, keyStep }` (`max` read back as a string: HINCRBY's integer
   * would reach Lua as a double) or `{ 'ranOut' }` (HINCRBY refused to pass 2^63 - 1).
   */
  claim: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local keyStep = redis.call('HGET', KEYS[1], 'step')
local free = redis.call('ZRANGEBYLEX', KEYS[2], '[' .. ARGV[2], '+', 'LIMIT', 0, 1)
if free[1] then
  redis.call('ZREM', KEYS[2], free[1])
  return { 'free', free[1], keyStep }
end
local step = ARGV[1]
if step == '' then step = keyStep end
local raised = redis.pcall('HINCRBY', KEYS[1], 'max', step)
if type(raised) == 'table' and raised.err then
  if string.find(raised.err, 'overflow', 1, true) then return { 'ranOut' } end
  return raised
end
redis.call('HSET', KEYS[1], 'updated', redis.call('TIME')[1])
return { 'fresh', redis.call('HGET', KEYS[1], 'max'), step, keyStep }
`,
  /** ARGV: the member. Nil for an unknown key. */
  handBack: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('ZADD', KEYS[2], 0, ARGV[1])
return 1
`,
  /** ARGV: the key's name, start, step. 1 when created. */
  createKey: `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'max', ARGV[2], 'step', ARGV[3], 'updated', redis.call('TIME')[1])
redis.call('SADD', KEYS[3], ARGV[1])
return 1
`,
  /** ARGV: the step. Nil for an unknown key. */
  setStep: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 'step', ARGV[1], 'updated', redis.call('TIME')[1])
return 1
`,
} as const;

const padded = (n: bigint): string => String(n).padStart(20, '0');

/** Refuses a Redis without an append-only file (a failed INFO is the caller's to turn into its error). */
async function checkAppendOnly(redis: Redis, where: string): Promise<void> {
  const info = await redis.info('persistence');
  if (/^aof_enabled:1\r?$/m.test(info)) return;
  const why = `Redis at ${where} keeps no append-only file (appendonly no): a crash or a restart would forget the segments claimed and hand their numbers out again. Run it with appendonly yes and appendfsync always, or give the segment store requireAppendOnly: false to accept that risk`;
  const details = { coordinator: 'redis', host: where };
  throw new VestaError('COORDINATOR_UNAVAILABLE', why, { details });
}

const REDIS = {
  name: 'Redis',
  coordinator: 'redis',
  option: 'redis',
  given: 'the given connection',
} as const;

/**
 * A `SegmentStore` on Redis, one Lua script a verb: per key a hash `{prefix}:segment:<key>` and a
 * sorted set `{prefix}:segment-free:<key>`; `{prefix}:segment-keys` names every key.
 * @example
 * const store = new RedisSegmentStore({ url: 'redis://cache:6379' });
 * await store.createKey('order', { step: 1000 });
 */
export class RedisSegmentStore extends ConnectedSegmentStore<Redis> {
  readonly #o: z.output<typeof redisSegmentStoreOptions.schema>;

  constructor(options: RedisSegmentStoreOptions) {
    const o = redisSegmentStoreOptions.resolve(options);
    super(REDIS, o.url, o.redis);
    this.#o = o;
  }

  protected async claimRange(redis: Redis, key: string, r: SegmentClaimRequest) {
    const args = [r.step === undefined ? '' : String(r.step), padded(r.minStart ?? 0n)];
    const reply = (await this.#eval(redis, SEGMENT_SCRIPTS.claim, key, ...args)) as
      [string, string, string, string?] | null;
    if (reply === null) throw unknownSegmentKey(key);
    if (reply[0] === 'ranOut') throw segmentKeyRanOut(key);
    if (reply[0] === 'free') {
      const [start, end] = reply[1].split(':') as [string, string];
      const keyStep = Number(reply[2]);
      return { start: BigInt(start), end: BigInt(end), keyStep, handedBack: true };
    }
    const end = BigInt(reply[1]);
    return { start: end - BigInt(reply[2]), end, keyStep: Number(reply[3]), handedBack: false };
  }

  protected async addFree(redis: Redis, key: string, range: SegmentRange): Promise<boolean> {
    const member = `${padded(range.start)}:${padded(range.end)}`;
    return (await this.#eval(redis, SEGMENT_SCRIPTS.handBack, key, member)) !== null;
  }

  protected async addKey(redis: Redis, key: string, start: bigint, step: number) {
    const args = [key, String(start), String(step)];
    return (await this.#eval(redis, SEGMENT_SCRIPTS.createKey, key, ...args)) === 1;
  }

  protected async putStep(redis: Redis, key: string, step: number): Promise<boolean> {
    return (await this.#eval(redis, SEGMENT_SCRIPTS.setStep, key, String(step))) !== null;
  }

  protected async listKeys(redis: Redis): Promise<SegmentKeyInfo[]> {
    const names = (await redis.smembers(this.#key('-keys'))).sort();
    const pipeline = redis.pipeline();
    for (const name of names) pipeline.hmget(this.#key(`:${name}`), 'max', 'step');
    const rows = (await pipeline.exec()) ?? [];
    return names.flatMap((key, i) => {
      const [error, value] = rows[i] ?? [];
      if (error) throw error;
      const [max, step] = value as [string | null, string | null];
      return max === null || step === null ? [] : [{ key, max: BigInt(max), step: Number(step) }];
    });
  }

  protected async release(opened: Promise<Redis> | undefined): Promise<void> {
    if (this.#o.redis !== undefined || opened === undefined) return;
    const redis = await opened.catch(() => undefined);
    redis?.disconnect(false);
  }

  #key = (kind: string): string => `{${this.#o.prefix}}:segment${kind}`;

  #eval(redis: Redis, script: string, key: string, ...args: string[]): Promise<unknown> {
    const keys = [this.#key(`:${key}`), this.#key(`-free:${key}`), this.#key('-keys')];
    return redis.eval(script, 3, ...keys, ...args);
  }

  /** No offline queue: while it is down requests fail at once (the engine serves its buffer). */
  protected async open(): Promise<Redis> {
    if (this.#o.redis !== undefined) {
      if (this.#o.requireAppendOnly) await checkAppendOnly(this.#o.redis, this.where);
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
    redis.on('error', () => undefined);
    // A client that never connected is let go: it would reconnect for ever, out of close()'s reach.
    try {
      await redis.connect();
      if (this.#o.requireAppendOnly) await checkAppendOnly(redis, this.where);
    } catch (error) {
      redis.disconnect(false);
      throw error;
    }
    return redis;
  }
}
