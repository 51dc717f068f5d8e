import { z } from 'zod';
import type { Logger } from '@vesta/core';
import { consoleLogger } from '@vesta/core';
import { functionOption, nonEmptyString, objectWith, wholeNumber } from '@vesta/core/kit';
import type { Clock } from '@vesta/core';
import type { TimeSource } from '@vesta/core';

/** Milliseconds from `min` to `max` (a day unless given). */
const ms = (min: number, max = 86_400_000): z.ZodNumber => wholeNumber(min, max);

/**
 * The declaration of `LeaseOptions`, the options every coordinator's provider shares
 * (ZooKeeper, Redis, PostgreSQL, etcd): the instance key and state dir, the fencing, reclaim and
 * clock bounds, the era wait, the time source and the logger. A provider spreads it into its own
 * `defineOptions` declaration (overriding a default where its store needs another) and resolves
 * the rules between them with {@link resolveLeaseOptions}.
 */
export const leaseOptionsShape = {
  key: z
    .string({ error: 'must be a non-empty string of at most 200 characters' })
    .min(1, { error: 'must be a non-empty string of at most 200 characters' })
    .max(200, { error: 'must be a non-empty string of at most 200 characters' })
    .optional(),
  stateDir: nonEmptyString.optional(),
  fallbackToCache: z.boolean({ error: 'must be a boolean' }).default(true),
  connectTimeoutMs: ms(10).default(5_000),
  operationTimeoutMs: ms(10).default(5_000),
  refreshIntervalMs: ms(10).default(2_000),
  fenceAfterMs: ms(20).default(8_000),
  reclaimAfterMs: ms(100, 365 * 86_400_000).default(120_000),
  maxClockSkewMs: ms(0).default(1_000),
  maxClockWaitMs: ms(0).default(10_000),
  ownerWaitMs: ms(0).optional(),
  eraWaitMs: ms(0).optional(),
  clock: functionOption<Clock>('a function returning Unix ms').optional(),
  time: objectWith<TimeSource>(
    'a TimeSource (now, monotonic, setTimer)',
    'now',
    'monotonic',
    'setTimer',
  ).optional(),
  logger: objectWith<Logger>('a Logger (info, warn, error)', 'warn', 'error').default(
    consoleLogger,
  ),
} as const;
