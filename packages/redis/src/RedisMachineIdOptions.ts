import { VestaError } from '@vesta/core';
import { defineOptions, wholeNumber } from '@vesta/core/kit';
import {
  coordinatorUrlOption,
  leaseOptionsShape,
  resolveLeaseOptions,
  type LeaseOptions,
  type ResolvedLeaseOptions,
} from '@vesta/lease';
import { z } from 'zod';

/**
 * Options of {@link RedisMachineIdProvider}: its own, and the lease options every coordinator
 * shares but `fallbackToCache` (a Redis lease never starts on a cached one).
 */
export interface RedisMachineIdOptions extends Omit<LeaseOptions, 'fallbackToCache'> {
  /** The Redis server, `redis://[[user]:password@]host:port[/db]` (or `rediss://` for TLS). */
  readonly url: string;
  /**
   * The prefix of this fleet's keys (`{prefix}:id:3`...; the braces keep them in one slot);
   * several fleets can share one Redis under different prefixes.
   * @default 'vesta'
   */
  readonly prefix?: string;
  /** Deadline of each Redis request. @default 2000 */
  readonly operationTimeoutMs?: number;
  /**
   * The expiry (PX) of the live key that marks the id held; renewals push it back. At least
   * `fenceAfterMs`: a holder that lost Redis has stopped by the time its key expires.
   * @default fenceAfterMs + 2000
   */
  readonly leaseTtlMs?: number;
  /**
   * An id without a live key whose mark was not raised for this long (Redis's clock) may be
   * taken over when no free id is left. At least twice `fenceAfterMs` and at least `leaseTtlMs`.
   * @default 120000
   */
  readonly reclaimAfterMs?: number;
  /**
   * How long start-up waits for the live key of this key's previous start (a crash) to expire
   * before taking another id.
   * @default leaseTtlMs + 2000
   */
  readonly ownerWaitMs?: number;
  /**
   * Replicas that must acknowledge each claim and renewal (Redis `WAIT`) before it counts; 0
   * trusts the primary alone (a failover can then lose the latest claims: see the README).
   * @default 0
   */
  readonly minReplicas?: number;
}

/** {@link RedisMachineIdOptions} after validation. */
export interface ResolvedRedisMachineIdOptions extends Omit<
  ResolvedLeaseOptions,
  'fallbackToCache'
> {
  readonly url: string;
  readonly prefix: string;
  readonly leaseTtlMs: number;
  readonly minReplicas: number;
}

const prefixOption = z
  .string({ error: 'must be letters, digits and . _ - : / (1 to 100)' })
  .regex(/^[A-Za-z0-9._\-:/]{1,100}$/, {
    error: 'must be letters, digits and . _ - : / (1 to 100)',
  });

/** The declaration of {@link RedisMachineIdOptions}; the rules between options follow in the resolver. */
export const redisMachineIdOptions = defineOptions('Redis', {
  url: coordinatorUrlOption(['redis', 'rediss'], 'redis://host:6379'),
  prefix: prefixOption.default('vesta'),
  ...z.object(leaseOptionsShape).omit({ fallbackToCache: true }).shape,
  operationTimeoutMs: leaseOptionsShape.operationTimeoutMs.unwrap().default(2_000),
  leaseTtlMs: leaseOptionsShape.fenceAfterMs.unwrap().optional(),
  minReplicas: wholeNumber(0, 100).default(0),
});

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolveRedisMachineIdOptions(
  options: RedisMachineIdOptions,
): ResolvedRedisMachineIdOptions {
  const o = redisMachineIdOptions.resolve(options);
  const leaseTtlMs = o.leaseTtlMs ?? o.fenceAfterMs + 2_000;
  if (leaseTtlMs < o.fenceAfterMs) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `leaseTtlMs (${leaseTtlMs}) must be at least fenceAfterMs (${o.fenceAfterMs})`,
    );
  }
  // Everything but fallbackToCache, which a Redis lease has no use for.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { fallbackToCache, ...lease } = resolveLeaseOptions(o, {
    reclaimAtLeast: { leaseTtlMs },
    ownerWaitMs: leaseTtlMs + 2_000,
  });
  return Object.freeze({
    ...lease,
    url: o.url,
    prefix: o.prefix,
    leaseTtlMs,
    minReplicas: o.minReplicas,
  });
}
