import type { Logger } from '@vesta/core';
import type { Clock } from '@vesta/core';
import type { TimeSource } from '@vesta/core';

/**
 * The options every coordinator's machine-id provider shares (ZooKeeper, Redis, PostgreSQL,
 * etcd), declared by {@link leaseOptionsShape} and resolved by {@link resolveLeaseOptions}. A
 * provider's options extend it with their own (connection, prefix, timeouts of the store) and
 * restate a field only where its default or meaning on that store differs.
 */
export interface LeaseOptions {
  /**
   * This instance's stable identity: the same key gets its old machine id back after a
   * restart. Servers use `host:port`; embedded instances a name of yours.
   * @default the key kept in `stateDir` (created on first start), else a random key per start
   */
  readonly key?: string;
  /**
   * Where the key (when none is given) and the last confirmed lease (id and time mark) are
   * kept, for stable identity and for starting while the coordinator is down.
   * @default undefined (no cache, no fallback)
   */
  readonly stateDir?: string;
  /** Start on the lease cached in `stateDir` when the coordinator cannot be reached. @default true */
  readonly fallbackToCache?: boolean;
  /** How long start-up waits for a first connection. @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Deadline of each request to the coordinator. @default 5000 */
  readonly operationTimeoutMs?: number;
  /** How often the lease is renewed (its time mark raised). @default 2000 */
  readonly refreshIntervalMs?: number;
  /**
   * Issuing stops when the lease was not confirmed for this long (monotonic clock); at least
   * twice `refreshIntervalMs`.
   * @default 8000
   */
  readonly fenceAfterMs?: number;
  /**
   * An id whose owner is gone and has not raised its mark for this long may be taken over when
   * no free id is left. At least twice `fenceAfterMs`.
   * @default 120000
   */
  readonly reclaimAfterMs?: number;
  /** The clock difference allowed (or assumed) between this host and the coordinator. @default 1000 */
  readonly maxClockSkewMs?: number;
  /**
   * At start, wait at most this long for the clock to pass the id's stored mark; else
   * CLOCK_BEHIND_HIGH_WATER_MARK.
   * @default 10000
   */
  readonly maxClockWaitMs?: number;
  /**
   * How long a start waits for the lease of this key's previous holder (a crash) to go before
   * taking another id.
   * @default fenceAfterMs + 1000
   */
  readonly ownerWaitMs?: number;
  /**
   * How long a start waits (monotonic clock) after finding no open allocation era (a new store,
   * or one that lost its data) before any id is handed out: every holder of the lost data has
   * fenced itself by then. 0 only for tests and a store never used.
   * @default fenceAfterMs + 2 × maxClockSkewMs + 1000
   */
  readonly eraWaitMs?: number;
  /** The wall clock (Unix ms). Give `clock` or `time`, not both. @default Date.now */
  readonly clock?: Clock;
  /**
   * Where the lease reads time and sets timers (marks, fencing bound, waits, renewals); tests
   * pass a manual one and advance it instead of sleeping. Give `clock` or `time`, not both.
   * @default systemTimeSource, or one on `clock`
   */
  readonly time?: TimeSource;
  /** Where warnings go. @default stderr */
  readonly logger?: Logger;
}
