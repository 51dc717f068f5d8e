import { defineOptions, wholeNumber } from '@vesta/core/kit';
import {
  coordinatorPathOption,
  leaseOptionsShape,
  resolveLeaseOptions,
  type LeaseOptions,
  type ResolvedLeaseOptions,
} from '@vesta/lease';
import { z } from 'zod';

/** Options of {@link ZooKeeperMachineIdProvider}: its own, and the lease options every coordinator shares. */
export interface ZooKeeperMachineIdOptions extends LeaseOptions {
  /** ZooKeeper servers, `host:port[,host:port]`. */
  readonly connect: string;
  /**
   * The path under which this fleet's allocations live; several fleets can share one ZooKeeper
   * under different roots.
   * @default '/vesta'
   */
  readonly root?: string;
  /** ZooKeeper session timeout (the server may bound it). @default 10000 */
  readonly sessionTimeoutMs?: number;
  /**
   * An id whose owner has no live node and has not raised its mark for this long may be taken
   * over when no free id is left. At least `sessionTimeoutMs` and twice `fenceAfterMs`.
   * @default 120000
   */
  readonly reclaimAfterMs?: number;
  /**
   * How long start-up waits for the live node of this key's previous session (a crash) to go
   * before taking a fresh id instead.
   * @default sessionTimeoutMs + 2000
   */
  readonly ownerWaitMs?: number;
  /**
   * How long a start waits (monotonic clock) after finding no allocation era in ZooKeeper (a new
   * tree, or one that lost its data) before any id is handed out: long enough for every instance
   * still holding an id of a lost tree to have fenced itself (or lost its session) and for this
   * host's clock to be past their last ids. 0 suits only tests and a tree never used.
   * @default max(fenceAfterMs, sessionTimeoutMs) + 2 × maxClockSkewMs + 1000
   */
  readonly eraWaitMs?: number;
}

/** {@link ZooKeeperMachineIdOptions} after validation. */
export interface ResolvedZooKeeperMachineIdOptions extends ResolvedLeaseOptions {
  readonly connect: string;
  readonly root: string;
  readonly sessionTimeoutMs: number;
}

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

/** The declaration of {@link ZooKeeperMachineIdOptions}; the rules between options follow in the resolver. */
export const zooKeeperMachineIdOptions = defineOptions('ZooKeeper', {
  connect: connectOption,
  root: coordinatorPathOption('an absolute ZooKeeper path').default('/vesta'),
  sessionTimeoutMs: wholeNumber(100, 600_000).default(10_000),
  ...leaseOptionsShape,
});

/** Validates the options once, fills defaults, freezes them. Throws INVALID_OPTIONS. */
export function resolveZooKeeperMachineIdOptions(
  options: ZooKeeperMachineIdOptions,
): ResolvedZooKeeperMachineIdOptions {
  const o = zooKeeperMachineIdOptions.resolve(options);
  const { sessionTimeoutMs } = o;
  return Object.freeze({
    ...resolveLeaseOptions(o, {
      reclaimAtLeast: { sessionTimeoutMs },
      ownerWaitMs: sessionTimeoutMs + 2_000,
      // A holder cut off from ZooKeeper issues until its fence or its session ends, the later.
      holderOutlivesMs: Math.max(o.fenceAfterMs, sessionTimeoutMs),
    }),
    connect: o.connect,
    root: o.root,
    sessionTimeoutMs,
  });
}
