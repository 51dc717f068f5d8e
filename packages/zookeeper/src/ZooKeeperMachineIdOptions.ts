import { wholeNumber } from '@vesta/core/kit';
import {
  coordinatorPathOption,
  defineCoordinatorOptions,
  defineLeaseOptions,
  type AdminOptionsOf,
} from '@vesta/lease';
import { z } from 'zod';

const HOST = '[A-Za-z0-9._\\-[\\]:]+:[0-9]{1,5}';
const error = 'must be host:port[,host:port]';

/** The declaration of {@link ZooKeeperMachineIdOptions} (the package README gives their meanings). */
export const zooKeeperMachineIdOptions = defineLeaseOptions('ZooKeeper', {
  /** ZooKeeper servers, `host:port[,host:port]` (no chroot); or give `url`. */
  connect: z
    .string({ error })
    .regex(new RegExp(`^\\s*${HOST}\\s*(,\\s*${HOST}\\s*)*$`), { error })
    .transform((value) => value.replace(/\s/g, ''))
    .optional(),
  /** `zookeeper://host:port[,host:port][/root][?option=value...]` instead of `connect` and `root`. */
  url: z.string().optional(),
  /** The path under which this fleet's allocations live. @default '/vesta' */
  root: coordinatorPathOption('an absolute ZooKeeper path').default('/vesta'),
  /** ZooKeeper session timeout (the server may bound it). @default 10000 */
  sessionTimeoutMs: wholeNumber(100, 600_000).default(10_000),
});

/** Options of {@link ZooKeeperMachineIdProvider}, as callers give them: see {@link zooKeeperMachineIdOptions}. */
export type ZooKeeperMachineIdOptions = Readonly<z.input<typeof zooKeeperMachineIdOptions.schema>>;

/** Resolves the provider's options (`resolve`) and the admin's (`resolveAdmin`). Throws INVALID_OPTIONS. */
export const zooKeeperOptions = defineCoordinatorOptions('ZooKeeper', zooKeeperMachineIdOptions, {
  url: { scheme: 'zookeeper', hosts: 'connect' },
  admin: ['connect', 'url', 'root'],
  rules: ({ sessionTimeoutMs, fenceAfterMs }) => ({
    reclaimAtLeast: { sessionTimeoutMs },
    ownerWaitMs: sessionTimeoutMs + 2_000,
    // A holder cut off from ZooKeeper issues until its fence or its session ends, the later.
    holderOutlivesMs: Math.max(fenceAfterMs, sessionTimeoutMs),
  }),
});

export type ResolvedZooKeeperMachineIdOptions = ReturnType<typeof zooKeeperOptions.resolve>;

/** Options of {@link ZooKeeperAdmin}: the provider's `connect` and `root`, and `timeoutMs`. */
export type ZooKeeperAdminOptions = AdminOptionsOf<typeof zooKeeperOptions.admin>;
