import { VestaError } from '@vesta/core';
import { wholeNumber } from '@vesta/core/kit';
import {
  defineLeaseOptions,
  withUrlOptions,
  leaseOptionsShape,
  resolveLeaseOptions,
  type Filled,
  type ResolvedLease,
} from '@vesta/lease';
import { z } from 'zod';
import { readRedisUrl, REDIS_URL_FORMS, type RedisTarget } from './redis/redisTarget.js';

const prefixOption = z
  .string({ error: 'must be letters, digits and . _ - : / (1 to 100)' })
  .regex(/^[A-Za-z0-9._\-:/]{1,100}$/, {
    error: 'must be letters, digits and . _ - : / (1 to 100)',
  });

/**
 * The one declaration of {@link RedisMachineIdOptions}: its own options, and the lease options
 * every coordinator shares but `fallbackToCache`, with the Redis meaning of those it restates.
 * The rules between options follow in {@link resolveRedisMachineIdOptions}.
 */
export const redisMachineIdOptions = defineLeaseOptions(
  'Redis',
  {
    /**
     * The Redis server, `redis://[[user]:password@]host:port[/db]` (`rediss://` for TLS), or the
     * primary Sentinel names, `redis+sentinel://[[user]:password@]host:port[,host:port]/master-name`
     * (followed across failovers). Any other option may be set in its query, as
     * `?prefix=prod&minReplicas=1`; Sentinel's own credentials as `?sentinelPassword=`.
     */
    url: z
      .string({ error: `must be a URL like ${REDIS_URL_FORMS}` })
      .refine((text) => readRedisUrl(text) !== undefined, {
        error: `must be a URL like ${REDIS_URL_FORMS}`,
      }),
    /**
     * The prefix of this fleet's keys (`{prefix}:id:3`...; the braces keep them in one slot);
     * several fleets can share one Redis under different prefixes.
     * @default 'vesta'
     */
    prefix: prefixOption.default('vesta'),
    /** Deadline of each Redis request. @default 2000 */
    operationTimeoutMs: leaseOptionsShape.operationTimeoutMs.unwrap().default(2_000),
    /**
     * The expiry (PX) of the live key that marks the id held; renewals push it back. At least
     * `fenceAfterMs`: a holder that lost Redis has stopped by the time its key expires.
     * @default fenceAfterMs + 2000
     */
    leaseTtlMs: leaseOptionsShape.fenceAfterMs.unwrap().optional(),
    /**
     * An id without a live key whose mark was not raised for this long (Redis's clock) may be
     * taken over when no free id is left. At least twice `fenceAfterMs` and at least `leaseTtlMs`.
     * @default 120000
     */
    reclaimAfterMs: leaseOptionsShape.reclaimAfterMs,
    /**
     * How long start-up waits for the live key of this key's previous start (a crash) to expire
     * before taking another id.
     * @default leaseTtlMs + 2000
     */
    ownerWaitMs: leaseOptionsShape.ownerWaitMs,
    /**
     * Replicas that must acknowledge each claim and renewal (Redis `WAIT`) before it counts. Unset,
     * one once the primary reports a connected replica (so a failover to it loses no claim), none
     * while it reports none. 0 trusts the primary alone: a failover can then lose the latest claims
     * and two instances issue on one id for up to `fenceAfterMs` (a warning says so at start).
     * @default 1 when the primary has replicas, else 0
     */
    minReplicas: wholeNumber(0, 100).optional(),
  },
  // A Redis lease never starts on a cached one.
  ['fallbackToCache'],
);

/** Options of {@link RedisMachineIdProvider}, as callers give them: see {@link redisMachineIdOptions} for each. */
export type RedisMachineIdOptions = Readonly<z.input<typeof redisMachineIdOptions.schema>>;

/** {@link RedisMachineIdOptions} after validation: every default filled, frozen. */
export type ResolvedRedisMachineIdOptions = Omit<
  ResolvedLease<Filled<z.output<typeof redisMachineIdOptions.schema>, 'leaseTtlMs'>>,
  'fallbackToCache'
> & {
  /** Where the URL points. */
  readonly target: RedisTarget;
};

/**
 * `options` with the options its URL's query sets (`?prefix=...&minReplicas=1`), `url` without
 * them: INVALID_OPTIONS for an unknown parameter or one given both ways. `keys` limits what the
 * query may set to those (an admin takes only `prefix`); the provider's other options are then
 * accepted and ignored.
 */
export function withRedisUrlOptions<O extends { readonly url: string }>(
  options: O,
  keys?: readonly string[],
): O & { readonly target?: RedisTarget } {
  return withUrlOptions('Redis', redisMachineIdOptions.schema, readRedisUrl, options, keys);
}

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolveRedisMachineIdOptions(
  options: RedisMachineIdOptions,
): ResolvedRedisMachineIdOptions {
  const { target, ...given } = withRedisUrlOptions(options);
  const o = redisMachineIdOptions.resolve(given);
  const leaseTtlMs = o.leaseTtlMs ?? o.fenceAfterMs + 2_000;
  if (leaseTtlMs < o.fenceAfterMs) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `leaseTtlMs (${leaseTtlMs}) must be at least fenceAfterMs (${o.fenceAfterMs})`,
    );
  }
  // What resolving adds for every store but fallbackToCache, which a Redis lease has no use for.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { fallbackToCache, ...resolved } = resolveLeaseOptions(
    { ...o, leaseTtlMs },
    {
      reclaimAtLeast: { leaseTtlMs },
      ownerWaitMs: leaseTtlMs + 2_000,
    },
  );
  // The schema refused a URL that does not read before this.
  if (target === undefined)
    throw new VestaError('INVALID_OPTIONS', `url must be ${REDIS_URL_FORMS}`);
  return Object.freeze({ ...resolved, target });
}
