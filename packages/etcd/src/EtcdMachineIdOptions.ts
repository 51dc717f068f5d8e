import {
  coordinatorPathOption,
  defineLeaseOptions,
  resolveLeaseOptions,
  withHostListUrl,
} from '@vesta/lease';
import { z } from 'zod';

const ENDPOINT = /^(https?:\/\/)?[A-Za-z0-9._-]+:[0-9]{1,5}$/;
const error = 'must be host:port[,host:port]';

/**
 * The one declaration of {@link EtcdMachineIdOptions}: its own options and the lease options
 * every coordinator shares (the package README gives each one's etcd meaning and default).
 */
export const etcdMachineIdOptions = defineLeaseOptions('etcd', {
  /** etcd endpoints, `host:port[,host:port]` (an `http://` prefix is allowed); or give `url`. */
  endpoints: z
    .string({ error })
    .refine((value) => value.split(',').every((part) => ENDPOINT.test(part.trim())), { error })
    .transform((value) =>
      value.split(',').map((part) => {
        const p = part.trim();
        return /^https?:\/\//.test(p) ? p : `http://${p}`;
      }),
    )
    .optional(),
  /**
   * etcd as one URL instead of `endpoints` and `root`:
   * `etcd://host:port[,host:port][/root][?option=value...]`, its query setting any other option
   * (`?fenceAfterMs=6000`).
   */
  url: z.string().optional(),
  /** The key prefix of this fleet. @default '/vesta' */
  root: coordinatorPathOption('a key prefix').default('/vesta'),
});

/** Options of {@link EtcdMachineIdProvider}, as callers give them: see {@link etcdMachineIdOptions}. */
export type EtcdMachineIdOptions = Readonly<z.input<typeof etcdMachineIdOptions.schema>>;

export type ResolvedEtcdMachineIdOptions = ReturnType<typeof resolveEtcdMachineIdOptions>;

/** `options` with a `url` read into `endpoints`, `root` and what its query sets. */
export function withEtcdUrl<O extends { readonly url?: string | undefined }>(
  options: O,
  keys?: readonly string[],
): Omit<O, 'url'> {
  return withHostListUrl('etcd', 'etcd', 'endpoints', etcdMachineIdOptions.schema, options, keys);
}

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolveEtcdMachineIdOptions(options: EtcdMachineIdOptions) {
  const o = etcdMachineIdOptions.resolve(withEtcdUrl(options));
  return resolveLeaseOptions(
    { ...o, endpoints: o.endpoints as string[] }, // withEtcdUrl required them
    // The live key outlives the fence by up to its TTL's rounding to seconds.
    { ownerWaitMs: Math.ceil(o.fenceAfterMs / 1000) * 1000 + 1_000 },
  );
}
