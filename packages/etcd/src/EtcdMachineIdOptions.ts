import {
  coordinatorPathOption,
  defineLeaseOptions,
  leaseOptionsShape,
  resolveLeaseOptions,
  withHostListUrl,
  type ResolvedLease,
} from '@vesta/lease';
import { z } from 'zod';

const ENDPOINT = /^(https?:\/\/)?[A-Za-z0-9._-]+:[0-9]{1,5}$/;
const ENDPOINTS_ERROR = 'must be host:port[,host:port]';

/** etcd endpoints, as `http://host:port` URLs. */
const endpointsOption = z
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

/**
 * The one declaration of {@link EtcdMachineIdOptions}: its own options, and the lease options
 * every coordinator shares, with the etcd meaning of those it restates.
 */
export const etcdMachineIdOptions = defineLeaseOptions('etcd', {
  /**
   * etcd endpoints, `host:port[,host:port]` (an `http://` prefix is allowed); resolved to one
   * `http://host:port` URL each.
   */
  endpoints: endpointsOption.optional(),
  /**
   * etcd as one URL instead of `endpoints` and `root`:
   * `etcd://host:port[,host:port][/root][?option=value...]`, its query setting any other option
   * (`?fenceAfterMs=6000`).
   */
  url: z.string().optional(),
  /** The key prefix of this fleet; several fleets can share one etcd. @default '/vesta' */
  root: coordinatorPathOption('a key prefix').default('/vesta'),
  /**
   * Issuing stops when the lease was not renewed for this long (monotonic clock); at least twice
   * `refreshIntervalMs`. The live key's etcd lease TTL is this, rounded up to whole seconds.
   * @default 8000
   */
  fenceAfterMs: leaseOptionsShape.fenceAfterMs,
  /**
   * A dead owner's id may be taken over once etcd has let its reclaim lease (TTL: this, in whole
   * seconds) expire, i.e. this long after the owner's last renewal. At least twice `fenceAfterMs`.
   * @default 120000
   */
  reclaimAfterMs: leaseOptionsShape.reclaimAfterMs,
  /** How long a start waits for this key's previous holder (a crash) to lose its live key. @default fenceAfterMs rounded up to seconds + 1000 */
  ownerWaitMs: leaseOptionsShape.ownerWaitMs,
});

/** Options of {@link EtcdMachineIdProvider}, as callers give them: see {@link etcdMachineIdOptions} for each. */
export type EtcdMachineIdOptions = Readonly<z.input<typeof etcdMachineIdOptions.schema>>;

/** {@link EtcdMachineIdOptions} after validation: every default filled, frozen. */
export type ResolvedEtcdMachineIdOptions = ResolvedLease<
  Omit<z.output<typeof etcdMachineIdOptions.schema>, 'endpoints' | 'url'> & {
    readonly endpoints: string[];
  }
>;

/** `options` with a `url` read into `endpoints`, `root` and what its query sets (see `url`). */
export function withEtcdUrl<O extends { readonly url?: string | undefined }>(
  options: O,
  keys?: readonly string[],
): Omit<O, 'url'> {
  return withHostListUrl('etcd', 'etcd', 'endpoints', etcdMachineIdOptions.schema, options, keys);
}

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolveEtcdMachineIdOptions(
  options: EtcdMachineIdOptions,
): ResolvedEtcdMachineIdOptions {
  const resolved = etcdMachineIdOptions.resolve(withEtcdUrl(options));
  const o = { ...resolved, endpoints: resolved.endpoints as string[] }; // withEtcdUrl required them
  // The live key outlives the fence by up to its TTL's rounding to seconds.
  return resolveLeaseOptions(o, { ownerWaitMs: Math.ceil(o.fenceAfterMs / 1000) * 1000 + 1_000 });
}
