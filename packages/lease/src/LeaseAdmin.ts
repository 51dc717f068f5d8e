import { randomUUID } from 'node:crypto';
import { VestaError, type VestaErrorCode } from '@vesta/core';
import {
  historyOf,
  type LeaseHistory,
  type LeaseHistoryFilter,
  type LeaseJournalEntry,
} from './LeaseJournal.js';

/** One id's allocation as an admin reports it; each admin's row adds what its store has. */
export interface LeaseAllocation {
  readonly machineId: number;
  /** The owner's key; null when released. */
  readonly owner: string | null;
  readonly alive: boolean;
  /** The last published time mark (Unix ms); 0 when none could be read. */
  readonly markMs: number;
  /** Ms since the owner last raised the mark. */
  readonly ageMs: number;
  readonly host: string | undefined;
  readonly pid: number | undefined;
}

export interface AllocationRecord {
  readonly owner?: string | null;
  readonly markMs?: number;
  readonly host?: string | null | undefined;
  readonly pid?: number | null | undefined;
}

/** The rows of the ids a store names (others passed over), gone ones left out, in id order. */
export async function listAllocations<R extends { readonly machineId: number }>(
  ids: Iterable<string | number>,
  read: (machineId: number) => Promise<R | undefined>,
): Promise<R[]> {
  const rows = await Promise.all([...ids].map(Number).filter(Number.isInteger).map(read));
  return rows
    .filter((row): row is Awaited<R> => row !== undefined)
    .sort((a, b) => a.machineId - b.machineId);
}

/** What one attempt at a release did: `raced` (changed since read), `live` or `missing`. */
export type ReleaseOutcome = 'released' | 'raced' | 'live' | 'missing';

/** An id as read (`record` undefined: unreadable), with what its release compares. */
export interface AdminRow<X extends object = object> {
  readonly machineId: number;
  readonly record: AllocationRecord | undefined;
  readonly alive: boolean;
  readonly ageMs?: number;
  readonly fields?: X;
}

export type LeaseStoreInitOutcome =
  { readonly created: true } | { readonly found: readonly string[] } | 'raced';

/** A coordinator's store as its admin reaches it: one connection per call. */
export interface AdminStore<C, R extends AdminRow> {
  /** The coordinator's name in errors: `etcd`, `PostgreSQL`. */
  readonly store: string;
  /** The code of a failure that is not a VestaError. @default 'COORDINATOR_UNAVAILABLE' */
  readonly code?: VestaErrorCode;
  /** Opens the connection without waiting for it (so a failed start is closed too). */
  open(): C;
  close(connection: C): unknown;
  /** In a NOT_FOUND message: `under /vesta`. */
  readonly where: string;
  /** `ZooKeeper under /vesta`. */
  readonly namespace: string;
  connect?(connection: C): Promise<void>;
  list(connection: C): Promise<readonly R[]>;
  /** Undefined when not allocated. */
  read(connection: C, machineId: number): Promise<R | undefined>;
  /**
   * Clears the owner (the mark stays), drops the key mapping and, with `force`, any live holder,
   * if unchanged since `row` was read; true: `released`, false: `raced`.
   */
  release(
    connection: C,
    row: R & { readonly record: AllocationRecord },
    force: boolean,
  ): Promise<ReleaseOutcome | boolean>;
  /** Creates `era` open if the store holds nothing; else up to `limit` of what it holds. */
  init(connection: C, era: string, limit: number): Promise<LeaseStoreInitOutcome>;
  /** Oldest first, unreadable entries left out. */
  history(connection: C): Promise<LeaseJournalEntry[]>;
}

const ATTEMPTS = 5;
const SHOWN = 5;

/** Operators' view of a fleet's allocations over an {@link AdminStore}, a connection per call. */
export class LeaseAdmin<A extends LeaseAllocation, C = unknown, R extends AdminRow = AdminRow> {
  readonly #store: AdminStore<C, R>;

  constructor(store: AdminStore<C, R>) {
    this.#store = store;
  }

  async list(): Promise<A[]> {
    const rows = await this.#with((c) => this.#store.list(c));
    return rows.map((row) => this.#allocation(row)).sort((a, b) => a.machineId - b.machineId);
  }

  // The store's own fields follow `alive` in `machine-ids list --json`.
  #allocation({ machineId, record, alive, ageMs = 0, fields }: AdminRow): A {
    const { owner = null, markMs = 0, host, pid } = record ?? {};
    return {
      machineId,
      owner,
      alive,
      ...fields,
      markMs,
      ageMs,
      host: host ?? undefined,
      pid: pid ?? undefined,
    } as A;
  }

  /**
   * Clears an id's owner (its time mark stays) and key mapping. A live id is refused unless
   * `force`: then its holder stops for good at its next write. INVALID_ARGUMENT, NOT_FOUND.
   */
  async release(machineId: number, options: { force?: boolean } = {}): Promise<A> {
    const force = options.force === true;
    const refuse = (why: string, code: VestaErrorCode = 'INVALID_ARGUMENT'): VestaError =>
      new VestaError(code, `machine id ${why}`);
    const notFound = () =>
      refuse(`${machineId} is not allocated ${this.#store.where}`, 'NOT_FOUND');
    const live = (owner: string | null) =>
      refuse(
        `${machineId} is held by a live instance (${owner ?? 'unknown'}); use --force to take it away`,
      );
    return this.#with(async (c) => {
      if (!Number.isInteger(machineId) || machineId < 0 || machineId > 1023) {
        throw refuse(`must be a whole number from 0 to 1023, got ${String(machineId)}`);
      }
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const row = await this.#store.read(c, machineId);
        if (row === undefined) throw notFound();
        const { record } = row;
        if (record === undefined) {
          throw refuse(`${machineId} holds data this tool cannot read; refusing to touch it`);
        }
        const allocation = this.#allocation({ ...row, ageMs: 0 });
        if (allocation.alive && !force) throw live(allocation.owner);
        const done = await this.#store.release(c, { ...row, record }, force);
        if (done === true || done === 'released') return allocation;
        if (done === 'live') throw live(allocation.owner);
        if (done === 'missing') throw notFound();
      }
      throw refuse(`${machineId} changed while being released; try again`);
    });
  }

  /**
   * Declares an empty store new (its era created open, so the first start skips `eraWaitMs`). Only
   * for a store known to be new: one that lost its data looks just as empty while holders of the
   * lost data may still issue. COORDINATOR_NOT_NEW naming what was found.
   */
  async init(): Promise<{ readonly era: string; readonly where: string }> {
    const where = this.#store.namespace;
    return this.#with(async (c) => {
      for (let i = 0; i < ATTEMPTS; i++) {
        const era = randomUUID();
        const outcome = await this.#store.init(c, era, SHOWN + 1);
        if (outcome === 'raced') continue;
        if ('created' in outcome) return { era, where };
        const { found } = outcome;
        const named = found.slice(0, SHOWN).join(', ') + (found.length > SHOWN ? ' and more' : '');
        throw new VestaError(
          'COORDINATOR_NOT_NEW',
          `${where} is not new, refusing to declare it new: it holds ${named}`,
          { details: { where, found: [...found] } },
        );
      }
      throw new VestaError(
        'COORDINATOR_NOT_NEW',
        `${where} changed while being declared new (something else writes there); refusing`,
        { details: { where } },
      );
    });
  }

  /** The store's lease journal: its entries, tenures and the window it covers, at `nowMs`. */
  async history(filter: LeaseHistoryFilter & { nowMs?: number } = {}): Promise<LeaseHistory> {
    const entries = await this.#with((c) => this.#store.history(c));
    return historyOf(entries, filter.nowMs ?? Date.now(), filter);
  }

  async #with<T>(work: (connection: C) => Promise<T>): Promise<T> {
    const store = this.#store;
    const connection = store.open();
    try {
      await store.connect?.(connection);
      return await work(connection);
    } catch (error) {
      if (VestaError.is(error)) throw error;
      throw new VestaError(
        store.code ?? 'COORDINATOR_UNAVAILABLE',
        `${store.store} request failed: ${String(error)}`,
        { cause: error },
      );
    } finally {
      await store.close(connection);
    }
  }
}
