import { VestaError } from '@vesta/core';
import { wholeNumber } from '@vesta/core/kit';
import {
  defineCoordinatorOptions,
  defineLeaseOptions,
  leaseOptionsShape,
  type AdminOptionsOf,
  type Filled,
  type ResolvedLease,
} from '@vesta/lease';
import { z } from 'zod';
import { readRedisUrl, REDIS_URL_FORMS, type RedisTarget } from './redis/redisTarget.js';

const PREFIX_ERROR = 'must be letters, digits and . _ - : / (1 to 100)';

const URL_ERROR = `must be a URL like ${REDIS_URL_FORMS}`;

/**
 * The declaration of {@link RedisMachineIdOptions}: Redis's own options and the shared lease
 * options (documented in `@vesta/lease`) but `fallbackToCache`: a Redis lease never starts on a
 * cached one.
 */
export const redisMachineIdOptions = defineLeaseOptions(
  'Redis',
  {
    /**
     * `redis://[[user]:password@]host:port[/db]` (`rediss://` for TLS), or
     * `redis+sentinel://[[user]:password@]host:port[,host:port]/master-name` (followed across
     * failovers). Its query may set any other option (`?prefix=prod&minReplicas=1`), and
     * Sentinel's own credentials (`?sentinelPassword=`).
     */
    url: z
      .string({ error: URL_ERROR })
      .refine((t) => readRedisUrl(t) !== undefined, { error: URL_ERROR }),
    /** The prefix of this fleet's keys (`{prefix}:id:3`...). @default 'vesta' */
    prefix: z
      .string({ error: PREFIX_ERROR })
      .regex(/^[A-Za-z0-9._\-:/]{1,100}$/, { error: PREFIX_ERROR })
      .default('vesta'),
    /** Deadline of each Redis request. @default 2000 */
    operationTimeoutMs: leaseOptionsShape.operationTimeoutMs.unwrap().default(2_000),
    /** The PX expiry of the live key, at least `fenceAfterMs`. @default fenceAfterMs + 2000 */
    leaseTtlMs: leaseOptionsShape.fenceAfterMs.unwrap().optional(),
    /**
     * Replicas that must acknowledge (`WAIT`) each claim and renewal. Unset: one once the
     * primary has an online replica (or is Sentinel's), else none; 0 trusts the primary alone
     * (warned at start). @default 1 when the primary has replicas, else 0
     */
    minReplicas: wholeNumber(0, 100).optional(),
  },
  ['fallbackToCache'],
);

/** Options of {@link RedisMachineIdProvider}, as callers give them. */
export type RedisMachineIdOptions = Readonly<z.input<typeof redisMachineIdOptions.schema>>;

/** {@link RedisMachineIdOptions} validated, every default filled, frozen; `target` is where the URL points. */
export type ResolvedRedisMachineIdOptions = Omit<
  ResolvedLease<Filled<z.output<typeof redisMachineIdOptions.schema>, 'leaseTtlMs'>>,
  'fallbackToCache'
> & { readonly target: RedisTarget };

const redisOptions = defineCoordinatorOptions('Redis', redisMachineIdOptions, {
  url: { read: readRedisUrl, form: REDIS_URL_FORMS },
  admin: ['url', 'prefix'],
  without: ['fallbackToCache'],
  rules: (o) => {
    const leaseTtlMs = o.leaseTtlMs ?? o.fenceAfterMs + 2_000;
    if (leaseTtlMs < o.fenceAfterMs) {
      throw new VestaError(
        'INVALID_OPTIONS',
        `leaseTtlMs (${leaseTtlMs}) must be at least fenceAfterMs (${o.fenceAfterMs})`,
      );
    }
    return { set: { leaseTtlMs }, reclaimAtLeast: { leaseTtlMs }, ownerWaitMs: leaseTtlMs + 2_000 };
  },
});

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export const resolveRedisMachineIdOptions = (
  options: RedisMachineIdOptions,
): ResolvedRedisMachineIdOptions => redisOptions.resolve(options) as ResolvedRedisMachineIdOptions;

/** Options of {@link RedisAdmin}: the provider's `url` and `prefix`, and `timeoutMs`. */
export type RedisAdminOptions = AdminOptionsOf<typeof redisOptions.admin>;

/** The admin's options, validated and frozen. Throws INVALID_OPTIONS. */
export const resolveRedisAdminOptions = (options: RedisAdminOptions) =>
  redisOptions.resolveAdmin(options);
