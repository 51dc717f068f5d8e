import {
  initLeaseStore,
  type LeaseStoreInit,
  type LeaseStoreInitOutcome,
} from './initLeaseStore.js';
import type { LeaseAllocation } from './LeaseAllocation.js';
import { historyOf, type LeaseHistory, type LeaseHistoryFilter } from './LeaseHistory.js';
import type { LeaseJournalEntry } from './LeaseJournal.js';
import { releaseAllocation, type ReleasableAllocation } from './releaseAllocation.js';
import { withAdminSession, type AdminSession } from './withAdminSession.js';

/** A coordinator's store as its admin reaches it: one connection per call (see {@link LeaseAdmin}). */
export interface AdminStore<A extends LeaseAllocation, C> extends AdminSession<C> {
  /** Where the ids are, in a NOT_FOUND message: e.g. `under /vesta`. */
  readonly where: string;
  /** The store and where in it, in init's answer and errors: e.g. `ZooKeeper under /vesta`. */
  readonly namespace: string;
  /** Waits for the connection `open` started (a store that connects on its first request has none). */
  connect?(connection: C): Promise<void>;
  /** Every allocated id, in id order; none when the store holds no allocation. */
  list(connection: C): Promise<A[]>;
  /**
   * One id as it stands, and how to release it (with `force`, dropping a live holder too);
   * undefined when it is not allocated, `'unreadable'` when it holds data this tool cannot read.
   */
  read(
    connection: C,
    machineId: number,
    force: boolean,
  ): Promise<ReleasableAllocation<A> | 'unreadable' | undefined>;
  /**
   * One atomic step creating the era `era` open if and only if the store holds nothing; else
   * what it holds, naming up to `limit` entries.
   */
  init(connection: C, era: string, limit: number): Promise<LeaseStoreInitOutcome>;
  /** Every entry the store's lease journal keeps, oldest first (entries it cannot read left out). */
  history(connection: C): Promise<LeaseJournalEntry[]>;
}

/** How many entries a refused init reads at most: its message names five, then "and more". */
const INIT_FOUND_LIMIT = 6;

/**
 * Operators' view of a fleet's allocations in a coordinator's store, the same for every store:
 * list them, release an id by hand, declare a store new. Each call opens its own connection and
 * closes it whatever happens; a failure is a VestaError (see {@link withAdminSession}). A
 * coordinator's admin class extends this one with its {@link AdminStore}.
 */
export class LeaseAdmin<A extends LeaseAllocation, C = unknown> {
  readonly #store: AdminStore<A, C>;

  constructor(store: AdminStore<A, C>) {
    this.#store = store;
  }

  /** Every allocated id, in id order. */
  async list(): Promise<A[]> {
    return this.#with((c) => this.#store.list(c));
  }

  /**
   * Releases an id: its owner is cleared (its time mark stays, so whoever takes it next issues
   * after it), its key mapping removed. A live id is refused with INVALID_ARGUMENT unless
   * `force`, which also drops the live holding: the holder finds out at its next renewal that
   * writes its record (an etcd holder's turns between only keep its leases alive) and stops for
   * good. Errors: INVALID_ARGUMENT, NOT_FOUND (see {@link releaseAllocation}).
   */
  async release(machineId: number, options: { force?: boolean } = {}): Promise<A> {
    const force = options.force === true;
    return this.#with((c) =>
      releaseAllocation(machineId, options, this.#store.where, () =>
        this.#store.read(c, machineId, force),
      ),
    );
  }

  /**
   * Declares the store new (`vesta machine-ids init`): creates its allocation era OPEN, so the
   * first start takes an id at once instead of waiting out `eraWaitMs`, in one atomic step and
   * only when the store holds no history (no era, allocation, live holder or key mapping). Only
   * for a store known to be new: one that lost its data looks just as empty, while holders of the
   * lost data may still be issuing (the era wait covers them). Errors: COORDINATOR_NOT_NEW
   * naming what was found.
   */
  async init(): Promise<LeaseStoreInit> {
    return this.#with((c) =>
      initLeaseStore(this.#store.namespace, (era) => this.#store.init(c, era, INIT_FOUND_LIMIT)),
    );
  }

  /**
   * The store's lease journal (`vesta machine-ids history`, `vesta audit --coordinator`): its
   * entries, the tenures they show (who held which id from when to when, and how it ended) and
   * the window it covers, read at `nowMs` (this host's clock), optionally one id's or from
   * `sinceMs`. Errors: the store's unavailable code.
   */
  async history(filter: LeaseHistoryFilter & { nowMs?: number } = {}): Promise<LeaseHistory> {
    const entries = await this.#with((c) => this.#store.history(c));
    return historyOf(entries, filter.nowMs ?? Date.now(), filter);
  }

  async #with<T>(work: (connection: C) => Promise<T>): Promise<T> {
    return withAdminSession(this.#store, async (c) => {
      await this.#store.connect?.(c);
      return work(c);
    });
  }
}
