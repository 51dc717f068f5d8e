import type { Logger, MachineIdLease, MachineIdProvider, TimeSource } from '@vesta/core';
import type { LeaseHistory } from '@vesta/lease';

/** A coordinator server the conformance suite owns: started for the suite, killed and wiped by it. */
export interface ConformanceCoordinator {
  /** `127.0.0.1:<port>`, where clients reach it directly (the suite puts proxies in front). */
  readonly address: string;
  /** Stops it: gracefully, or as a crash with `{ kill: true }`. Its data stays. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Starts it again on the same port with the data it had (a kill loses nothing acknowledged). */
  restart(): Promise<void>;
  /**
   * Makes it lose every lease (Redis flushed, table truncated, ZooKeeper without its data dir,
   * etcd restored from an old snapshot) and answer again on the same address.
   */
  wipe(): Promise<void>;
  /** Stops it for good and deletes its data. */
  dispose(): Promise<void>;
}

/**
 * The timings a provider is built with:
 * - `fast`: short bounds (fence well under a second, reclaim about a second), no era wait (each
 *   test uses a fresh namespace no instance ever used);
 * - `outage`: leases outlive a coordinator down for up to 10 s (sessions, lease expiry and reclaim
 *   delay above that), fence under a second, no era wait;
 * - `dataLoss`: fence of a few seconds, longer than the coordinator takes to come back, so that a
 *   newcomer taking the id at once would issue beside the holder.
 */
export type ConformanceProfile = 'fast' | 'outage' | 'dataLoss';

/** What the suite asks a harness to build a provider with. */
export interface ConformanceProviderOptions {
  /** `host:port` to connect to: the coordinator's address, or a proxy's in front of it. */
  readonly address: string;
  /** A namespace from {@link MachineIdProviderHarness.namespace} (root, key prefix, schema...). */
  readonly namespace: string;
  /** The instance key; none: the provider's default (the state dir's key, else random). */
  readonly key?: string;
  readonly stateDir?: string;
  readonly profile: ConformanceProfile;
  /**
   * The wait on a store without an allocation era: `none` (0), or `default` (the provider's
   * default for the profile's timings, which must cover the holder's fence).
   * @default 'none'
   */
  readonly eraWait?: 'none' | 'default';
  readonly time?: TimeSource;
  readonly logger?: Logger;
  /** How many entries the store's lease journal keeps. @default the provider's */
  readonly journalRetention?: number;
  /**
   * How long a connection attempt may go unanswered before the client gives it up (and, where
   * the client reconnects, opens another): a test that cuts the connection and heals it waits up
   * to this long for the client to leave a connection the cut left hanging.
   * @default the profile's
   */
  readonly connectTimeoutMs?: number;
}

/** The lease surface the suite reads (every provider's lease has it: health and metrics). */
export interface ConformanceLease extends MachineIdLease {
  /** Confirmed now: not fenced, not lost. */
  readonly valid: boolean;
  /** Stopped for good (the id moved, or the coordinator lost it). */
  readonly lost: boolean;
  readonly stats: {
    readonly renewals: number;
    readonly missedRenewals: number;
    readonly confirmedAgeMs: number | undefined;
    readonly fenced: boolean;
    readonly lost: boolean;
  };
}

/** A provider as the suite uses it: its acquisitions counted by kind. */
export interface ConformanceProvider extends MachineIdProvider {
  acquire(...args: Parameters<MachineIdProvider['acquire']>): Promise<ConformanceLease>;
  readonly stats: {
    readonly fresh: number;
    readonly reused: number;
    readonly reclaimed: number;
    readonly refused: number;
  };
}

/** One allocation as the provider's admin lists it. */
export interface ConformanceAllocation {
  readonly machineId: number;
  readonly owner: string | null;
  readonly alive: boolean;
  /** The last published time mark (Unix ms). */
  readonly markMs: number;
}

/**
 * What {@link describeMachineIdProviderConformance} needs of a provider: see the testkit README
 * ("Machine-id provider conformance") for the contract.
 */
export interface MachineIdProviderHarness {
  /** The coordinator's name in test titles (`ZooKeeper`, `Redis`...). */
  readonly name: string;
  /** Starts a coordinator of the suite's own on a free port of 127.0.0.1. */
  startCoordinator(): Promise<ConformanceCoordinator>;
  /** A namespace nobody used yet (fresh allocations, no era). */
  namespace(): string;
  createProvider(options: ConformanceProviderOptions): ConformanceProvider;
  /** The timings of a profile, for the suite's bounds and waits. */
  timings(profile: ConformanceProfile): {
    readonly fenceAfterMs: number;
    readonly reclaimAfterMs: number;
    /** The `default` era wait of the profile. */
    readonly eraWaitMs: number;
  };
  /**
   * Kills a lease as a crashed process would leave it: renewals stop at once, no final mark, no
   * release; the coordinator sees the holder vanish (session, connection or lease expiry).
   */
  abandon(lease: ConformanceLease): void;
  /**
   * The admin's view of a namespace (list), release by hand (`force` takes a live id) and the
   * declaration that a namespace is new (`init`: its era created open; COORDINATOR_NOT_NEW when
   * it holds any history).
   */
  admin(
    address: string,
    namespace: string,
  ): {
    list(): Promise<readonly ConformanceAllocation[]>;
    release(machineId: number, options?: { force?: boolean }): Promise<unknown>;
    init(): Promise<{ readonly era: string; readonly where: string }>;
    /** The store's lease journal: its entries and tenures (see `LeaseAdmin.history`). */
    history(): Promise<LeaseHistory>;
  };
  /**
   * Everything the coordinator holds in `namespace`, read raw (each key, node or row with its
   * value and the store's write version, in a stable order): equal before and after a call that
   * must change nothing.
   */
  dump(address: string, namespace: string): Promise<readonly string[]>;
}
