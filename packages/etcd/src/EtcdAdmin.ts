import {
  defineAdminOptions,
  type CoordinatorAdminOptions,
  withAdminSession,
  releaseAllocation,
  initLeaseStore,
  type LeaseAllocation,
  type LeaseStoreInit,
} from '@vesta/lease';
import { etcdMachineIdOptions, type EtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import { EtcdStore, type EtcdIdRow, type IdRecordData } from './etcd/EtcdStore.js';

/** The provider's options an admin connects with (their declarations and TSDoc are the provider's). */
const CONNECTION = { endpoints: true, root: true } as const;

/** The declaration of {@link EtcdAdminOptions}: the provider's connection, a deadline. */
const etcdAdminOptions = defineAdminOptions(
  'etcd',
  etcdMachineIdOptions.schema.pick(CONNECTION).shape,
);

/** Options of {@link EtcdAdmin}: the provider's connection options and `timeoutMs`. */
export type EtcdAdminOptions = Pick<EtcdMachineIdOptions, keyof typeof CONNECTION> &
  CoordinatorAdminOptions;

/**
 * One machine id's allocation, as {@link EtcdAdmin.list} reports it: `alive` when a live key
 * holds it (its holder's etcd lease has not expired), `ageMs` since the record was last written
 * (this host's clock against the writer's).
 */
export interface EtcdMachineIdAllocation extends LeaseAllocation {
  /** Whether its owner renewed within the reclaim delay (its reclaim lease has not expired). */
  readonly recent: boolean;
}

/** How many keys a refused init reports (it names five, then "and more"). */
const INIT_FOUND_LIMIT = 6;

/** An id's allocation from its row (age 0 unless given). */
function allocationOf(
  row: EtcdIdRow,
  data: Partial<IdRecordData> | undefined,
  ageMs = 0,
): EtcdMachineIdAllocation {
  return {
    machineId: row.machineId,
    owner: data?.owner ?? null,
    alive: row.live,
    recent: row.recent,
    markMs: data?.markMs ?? 0,
    ageMs,
    host: data?.host,
    pid: data?.pid,
  };
}

/**
 * Operators' view of a fleet's allocations in etcd: list them, release an id by hand, declare a
 * prefix new.
 */
export class EtcdAdmin {
  readonly #endpoints: readonly string[];
  readonly #root: string;
  readonly #timeoutMs: number;

  /** Validates the options (INVALID_OPTIONS); connects on each call. */
  constructor(options: EtcdAdminOptions) {
    const o = etcdAdminOptions.resolve(options);
    this.#endpoints = o.endpoints;
    this.#root = o.root;
    this.#timeoutMs = o.timeoutMs;
  }

  /** Every allocated id under the root, in id order. */
  async list(): Promise<EtcdMachineIdAllocation[]> {
    return this.#with(async (store) =>
      (await store.readIds()).map((r) =>
        allocationOf(r, r.data, Math.max(0, Date.now() - (r.data?.writtenAtMs ?? Date.now()))),
      ),
    );
  }

  /**
   * Releases an id: owner and holder cleared, live key deleted (its time mark stays, so whoever
   * takes it next issues after it). A live id is refused with INVALID_ARGUMENT unless `force`:
   * its holder then finds its record moved at its next renewal and stops for good.
   */
  async release(
    machineId: number,
    options: { force?: boolean } = {},
  ): Promise<EtcdMachineIdAllocation> {
    return this.#with((store) =>
      releaseAllocation(machineId, options, `under ${this.#root}`, async () => {
        const row = (await store.readIds()).find((r) => r.machineId === machineId);
        if (row === undefined) return undefined;
        const { data } = row;
        if (data === undefined) return 'unreadable';
        return {
          allocation: allocationOf(row, data),
          release: async () =>
            (await store.adminRelease(machineId, row.modRevision, data)) ? 'released' : 'raced',
        };
      }),
    );
  }

  /**
   * Declares the prefix new (`vesta machine-ids init`): creates its allocation era OPEN, so the
   * first start takes an id at once instead of waiting out `eraWaitMs`; in one transaction, and
   * only when no key at all lies under `<root>/` (no era, record, live or recent key). Only for
   * an etcd known to be new: one restored or wiped without the keys looks just as empty, while
   * holders of the lost keys may still be issuing (the era wait covers them). Errors:
   * COORDINATOR_NOT_NEW naming the keys found.
   */
  async init(): Promise<LeaseStoreInit> {
    return this.#with((store) =>
      initLeaseStore(`etcd under ${this.#root}`, (era) => store.initEra(era, INIT_FOUND_LIMIT)),
    );
  }

  async #with<T>(work: (store: EtcdStore) => Promise<T>): Promise<T> {
    const session = {
      store: 'etcd',
      open: () =>
        new EtcdStore({
          endpoints: this.#endpoints,
          root: this.#root,
          connectTimeoutMs: this.#timeoutMs,
          operationTimeoutMs: this.#timeoutMs,
        }),
      close: (store: EtcdStore) => store.close(),
    };
    return withAdminSession(session, work);
  }
}
