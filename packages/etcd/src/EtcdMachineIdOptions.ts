import { defineOptions } from '@vesta/core/kit';
import { coordinatorPathOption, leaseOptionsShape, resolveLeaseOptions } from '@vesta/lease';
import type { LeaseOptions, ResolvedLeaseOptions } from '@vesta/lease';
import { z } from 'zod';

/** Options of {@link EtcdMachineIdProvider}: its own, and the lease options every coordinator shares. */
export interface EtcdMachineIdOptions extends LeaseOptions {
  /** etcd endpoints, `host:port[,host:port]` (an `http://` prefix is allowed). */
  readonly endpoints: string;
  /** The key prefix of this fleet; several fleets can share one etcd. @default '/vesta' */
  readonly root?: string;
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
  /** How long a start waits for this key's previous holder (a crash) to lose its live key. @default fenceAfterMs rounded up to seconds + 1000 */
  readonly ownerWaitMs?: number;
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

/** The declaration of {@link EtcdMachineIdOptions}. */
export const etcdMachineIdOptions = defineOptions('etcd', {
  endpoints: endpointsOption,
  root: coordinatorPathOption('a key prefix').default('/vesta'),
  ...leaseOptionsShape,
});

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolveEtcdMachineIdOptions(
  options: EtcdMachineIdOptions,
): ResolvedEtcdMachineIdOptions {
  const o = etcdMachineIdOptions.resolve(options);
  return Object.freeze({
    // The live key outlives the fence by up to its TTL's rounding to seconds.
    ...resolveLeaseOptions(o, { ownerWaitMs: Math.ceil(o.fenceAfterMs / 1000) * 1000 + 1_000 }),
    hosts: Object.freeze(o.endpoints),
    root: o.root,
  });
}
