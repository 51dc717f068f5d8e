import type { Clock, Logger, TimeSource } from '@vesta/core';
import { defineOptions, leaseOptionsShape, resolveLeaseOptions } from '@vesta/core/kit';
import type { ResolvedLeaseOptions } from '@vesta/core/kit';
import { z } from 'zod';

/** Options of {@link EtcdMachineIdProvider}. */
export interface EtcdMachineIdOptions {
  /** etcd endpoints, `host:port[,host:port]` (an `http://` prefix is allowed). */
  readonly endpoints: string;
  /** The key prefix of this fleet; several fleets can share one etcd. @default '/vesta' */
  readonly root?: string;
  /**
   * This instance's stable identity: the same key gets its old machine id back after a restart.
   * @default the key kept in `stateDir` (created on first start), else a random key per start
   */
  readonly key?: string;
  /** Where the key and the last confirmed lease are kept (stable identity, start while etcd is down). @default undefined */
  readonly stateDir?: string;
  /** Start on the lease cached in `stateDir` when etcd cannot be reached. @default true */
  readonly fallbackToCache?: boolean;
  /** How long a connection attempt may take. @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Deadline of each request (the connection is replaced after a failure). @default 5000 */
  readonly operationTimeoutMs?: number;
  /** How often the lease is renewed (keep-alive and mark). @default 2000 */
  readonly refreshIntervalMs?: number;
  /**
   * Issuing stops when the lease was not renewed for this long (monotonic clock); at least twice
   * `refreshIntervalMs`. The live key's etcd lease TTL is this, rounded up to whole seconds.
   * @default 8000
   */
  readonly fenceAfterMs?: number;
  /**
   * A dead owner's id may be taken over once etcd has let its reclaim lease (TTL: this, in whole
   * seconds) expire, i.e. this long after the owner's last renewal. At least twice `fenceAfterMs`.
   * @default 120000
   */
  readonly reclaimAfterMs?: number;
  /**
   * The clock difference assumed between hosts (etcd has no clock to check against): it widens
   * the era wait and narrows the cached lease's validity.
   * @default 1000
   */
  readonly maxClockSkewMs?: number;
  /** At start, wait at most this long for the clock to pass the id's stored mark. @default 10000 */
  readonly maxClockWaitMs?: number;
  /** How long a start waits for this key's previous holder (a crash) to lose its live key. @default fenceAfterMs rounded up to seconds + 1000 */
  readonly ownerWaitMs?: number;
  /**
   * How long a start waits (monotonic clock) after finding no open allocation era (a new
   * prefix, or etcd restored from a snapshot without it) before any id is handed out.
   * @default fenceAfterMs + 2 × maxClockSkewMs + 1000
   */
  readonly eraWaitMs?: number;
  /** The wall clock (Unix ms). Give `clock` or `time`, not both. @default Date.now */
  readonly clock?: Clock;
  /** Where the lease reads time and sets timers; tests pass a manual one. @default systemTimeSource */
  readonly time?: TimeSource;
  /** Where warnings go. @default stderr */
  readonly logger?: Logger;
}

/** {@link EtcdMachineIdOptions} after validation. */
export interface ResolvedEtcdMachineIdOptions extends ResolvedLeaseOptions {
  /** `http://host:port` each. */
  readonly hosts: readonly string[];
  readonly root: string;
}

const ENDPOINT = /^(https?:\/\/)?[A-Za-z0-9._-]+:[0-9]{1,5}$/;
const ENDPOINTS_ERROR = 'must be host:port[,host:port]';

/** etcd endpoints, as `http://host:port` URLs. */
export const endpointsOption = z
  .string({ error: ENDPOINTS_ERROR })
  .refine((value) => value.split(',').every((part) => ENDPOINT.test(part.trim())), {
    error: ENDPOINTS_ERROR,
  })
  .transform((value) =>
    value.split(',').map((part) => {
      const p = part.trim();
      return /^https?:\/\//.test(p) ? p : `http://${p}`;
    }),
  );

/** A key prefix: absolute, no trailing slash, no empty or dot segments. */
export const etcdRootOption = z
  .string({ error: 'must be a key prefix like /vesta or /fleets/a' })
  .refine(
    (value) =>
      /^(\/[A-Za-z0-9._-]+)+$/.test(value) &&
      !value.split('/').some((segment) => segment === '.' || segment === '..'),
    { error: 'must be a key prefix like /vesta or /fleets/a' },
  );

/** The declaration of {@link EtcdMachineIdOptions}. */
export const etcdMachineIdOptions = defineOptions('etcd', {
  endpoints: endpointsOption,
  root: etcdRootOption.default('/vesta'),
  ...leaseOptionsShape,
});

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolveEtcdMachineIdOptions(
  options: EtcdMachineIdOptions,
): ResolvedEtcdMachineIdOptions {
  const o = etcdMachineIdOptions.resolve(options);
  const lease = resolveLeaseOptions(o);
  return Object.freeze({
    ...lease,
    // The live key outlives the fence by up to its TTL's rounding to seconds.
    ownerWaitMs: o.ownerWaitMs ?? Math.ceil(lease.fenceAfterMs / 1000) * 1000 + 1_000,
    hosts: Object.freeze(o.endpoints),
    root: o.root,
  });
}
