import {
  coordinatorPathOption,
  defineCoordinatorOptions,
  defineLeaseOptions,
  type AdminOptionsOf,
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

const etcdOptions = defineCoordinatorOptions('etcd', etcdMachineIdOptions, {
  url: { scheme: 'etcd', hosts: 'endpoints' },
  admin: ['endpoints', 'url', 'root'],
  // The live key outlives the fence by up to its TTL's rounding to seconds.
  rules: (o) => ({ ownerWaitMs: Math.ceil(o.fenceAfterMs / 1000) * 1000 + 1_000 }),
});

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export const resolveEtcdMachineIdOptions = (options: EtcdMachineIdOptions) =>
  etcdOptions.resolve(options);

export type ResolvedEtcdMachineIdOptions = ReturnType<typeof resolveEtcdMachineIdOptions>;

/** Options of {@link EtcdAdmin}: the provider's `endpoints` and `root`, and `timeoutMs`. */
export type EtcdAdminOptions = AdminOptionsOf<typeof etcdOptions.admin>;

/** The admin's options, validated and frozen. Throws INVALID_OPTIONS. */
export const resolveEtcdAdminOptions = (options: EtcdAdminOptions) =>
  etcdOptions.resolveAdmin(options);
