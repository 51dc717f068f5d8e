import { defineOptions, objectWith, wholeNumber } from '@vesta/core/kit';
import { coordinatorUrlOption } from '@vesta/lease';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { requireConnection } from '../store/requireConnection.js';

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
  /**
   * Refuse (COORDINATOR_UNAVAILABLE) a Redis without an append-only file: it forgets on a restart
   * the ranges it handed out. false accepts that risk (recreate keys with a `start` above every
   * number served). @default true
   */
  requireAppendOnly: z.boolean({ error: 'must be true or false' }).default(true),
  /** How long connecting may take. @default 5000 */
  connectTimeoutMs: wholeNumber(1, 600_000).default(5000),
  /** The deadline of each request. @default 2000 */
  operationTimeoutMs: wholeNumber(1, 600_000).default(2000),
});

/** Options of {@link RedisSegmentStore}, as callers give them: see {@link redisSegmentStoreOptions} for each. */
export type RedisSegmentStoreOptions = Readonly<z.input<typeof redisSegmentStoreOptions.schema>>;

/** Validates the options once (INVALID_OPTIONS), fills defaults, freezes them. */
export function resolveRedisSegmentStoreOptions(
  options: RedisSegmentStoreOptions,
): Readonly<z.output<typeof redisSegmentStoreOptions.schema>> {
  const o = redisSegmentStoreOptions.resolve(options);
  requireConnection('Redis segment store', o, 'redis', o.redis);
  return o;
}
