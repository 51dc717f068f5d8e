import {
  coordinatorPathOption,
  defineCoordinatorOptions,
  defineLeaseOptions,
  type AdminOptionsOf,
} from '@vesta/lease';
import { z } from 'zod';

const ENDPOINT = /^(https?:\/\/)?[A-Za-z0-9._-]+:[0-9]{1,5}$/;
const error = 'must be host:port[,host:port]';

/** The declaration of {@link EtcdMachineIdOptions}: etcd's own and the shared lease options. */
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
  /** Instead of `endpoints` and `root`: `etcd://host:port[,host:port][/root][?option=value...]`. */
  url: z.string().optional(),
  /** The key prefix of this fleet. @default '/vesta' */
  root: coordinatorPathOption('a key prefix').default('/vesta'),
});

/** Options of {@link EtcdMachineIdProvider}, as callers give them. */
export type EtcdMachineIdOptions = Readonly<z.input<typeof etcdMachineIdOptions.schema>>;

const etcdOptions = defineCoordinatorOptions('etcd', etcdMachineIdOptions, {
  url: { scheme: 'etcd', hosts: 'endpoints' },
  admin: ['endpoints', 'url', 'root'],
  // The live key outlives the fence by up to its TTL's rounding to seconds.
  rules: (o) => ({ ownerWaitMs: Math.ceil(o.fenceAfterMs / 1000) * 1000 + 1_000 }),
});

/** The provider's and the admin's options validated, filled and frozen. Throws INVALID_OPTIONS. */
export const { resolve: resolveEtcdMachineIdOptions, resolveAdmin: resolveEtcdAdminOptions } =
  etcdOptions;

export type ResolvedEtcdMachineIdOptions = ReturnType<typeof resolveEtcdMachineIdOptions>;

/** Options of {@link EtcdAdmin}: the provider's `endpoints` and `root`, and `timeoutMs`. */
export type EtcdAdminOptions = AdminOptionsOf<typeof etcdOptions.admin>;
