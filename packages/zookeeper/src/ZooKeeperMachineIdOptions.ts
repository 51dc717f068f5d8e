import { wholeNumber } from '@vesta/core/kit';
import {
  coordinatorPathOption,
  defineLeaseOptions,
  leaseOptionsShape,
  resolveLeaseOptions,
  withHostListUrl,
  type ResolvedLease,
} from '@vesta/lease';
import { z } from 'zod';

const HOST_PORT = /^[A-Za-z0-9._\-[\]:]+:[0-9]{1,5}$/;

/** A ZooKeeper connect string (`host:port[,host:port]`, without a chroot), white space trimmed. */
const connectOption = z
  .string({ error: 'must be host:port[,host:port]' })
  .refine((value) => value.split(',').every((part) => HOST_PORT.test(part.trim())), {
    error: 'must be host:port[,host:port]',
  })
  .transform((value) =>
    value
      .split(',')
      .map((part) => part.trim())
      .join(','),
  );

/**
 * The one declaration of {@link ZooKeeperMachineIdOptions}: its own options, and the lease
 * options every coordinator shares, with the ZooKeeper meaning of those it restates. The rules
 * between options follow in {@link resolveZooKeeperMachineIdOptions}.
 */
export const zooKeeperMachineIdOptions = defineLeaseOptions('ZooKeeper', {
  /** ZooKeeper servers, `host:port[,host:port]`; or give `url`. */
  connect: connectOption.optional(),
  /**
   * ZooKeeper as one URL instead of `connect` and `root`:
   * `zookeeper://host:port[,host:port][/root][?option=value...]`, its query setting any other
   * option (`?sessionTimeoutMs=6000`).
   */
  url: z.string().optional(),
  /**
   * The path under which this fleet's allocations live; several fleets can share one ZooKeeper
   * under different roots.
   * @default '/vesta'
   */
  root: coordinatorPathOption('an absolute ZooKeeper path').default('/vesta'),
  /** ZooKeeper session timeout (the server may bound it). @default 10000 */
  sessionTimeoutMs: wholeNumber(100, 600_000).default(10_000),
  /**
   * An id whose owner has no live node and has not raised its mark for this long may be taken
   * over when no free id is left. At least `sessionTimeoutMs` and twice `fenceAfterMs`.
   * @default 120000
   */
  reclaimAfterMs: leaseOptionsShape.reclaimAfterMs,
  /**
   * How long start-up waits for the live node of this key's previous session (a crash) to go
   * before taking a fresh id instead.
   * @default sessionTimeoutMs + 2000
   */
  ownerWaitMs: leaseOptionsShape.ownerWaitMs,
  /**
   * How long a start waits (monotonic clock) after finding no allocation era in ZooKeeper (a new
   * tree, or one that lost its data) before any id is handed out: long enough for every instance
   * still holding an id of a lost tree to have fenced itself (or lost its session) and for this
   * host's clock to be past their last ids. 0 suits only tests and a tree never used.
   * @default max(fenceAfterMs, sessionTimeoutMs) + 2 × maxClockSkewMs + 1000
   */
  eraWaitMs: leaseOptionsShape.eraWaitMs,
});

/** Options of {@link ZooKeeperMachineIdProvider}, as callers give them: see {@link zooKeeperMachineIdOptions} for each. */
export type ZooKeeperMachineIdOptions = Readonly<z.input<typeof zooKeeperMachineIdOptions.schema>>;

/** {@link ZooKeeperMachineIdOptions} after validation: every default filled, frozen. */
export type ResolvedZooKeeperMachineIdOptions = ResolvedLease<
  Omit<z.output<typeof zooKeeperMachineIdOptions.schema>, 'connect' | 'url'> & {
    readonly connect: string;
  }
>;

/** `options` with a `url` read into `connect`, `root` and what its query sets (see `url`). */
export function withZooKeeperUrl<O extends { readonly url?: string | undefined }>(
  options: O,
  keys?: readonly string[],
): Omit<O, 'url'> & { readonly connect: string } {
  const o = withHostListUrl(
    'ZooKeeper',
    'zookeeper',
    'connect',
    zooKeeperMachineIdOptions.schema,
    options,
    keys,
  );
  return o as typeof o & { readonly connect: string };
}

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolveZooKeeperMachineIdOptions(
  options: ZooKeeperMachineIdOptions,
): ResolvedZooKeeperMachineIdOptions {
  const o = zooKeeperMachineIdOptions.resolve(withZooKeeperUrl(options));
  const connect = o.connect as string; // withZooKeeperUrl required it
  const { sessionTimeoutMs } = o;
  return resolveLeaseOptions(
    { ...o, connect },
    {
      reclaimAtLeast: { sessionTimeoutMs },
      ownerWaitMs: sessionTimeoutMs + 2_000,
      // A holder cut off from ZooKeeper issues until its fence or its session ends, the later.
      holderOutlivesMs: Math.max(o.fenceAfterMs, sessionTimeoutMs),
    },
  );
}
