import { VestaError } from '@vesta/core';
import { checkOption, wholeNumber } from '@vesta/core/kit';
import { endpointsOption, etcdRootOption } from './EtcdMachineIdOptions.js';
import { EtcdStore } from './etcd/EtcdStore.js';

/** Options of {@link EtcdAdmin}. */
export interface EtcdAdminOptions {
  /** etcd endpoints, `host:port[,host:port]`. */
  readonly endpoints: string;
  /** The fleet's key prefix. @default '/vesta' */
  readonly root?: string;
  /** Deadline of the connection and of each request. @default 5000 */
  readonly timeoutMs?: number;
}

/** One machine id's allocation, as {@link EtcdAdmin.list} reports it. */
export interface EtcdMachineIdAllocation {
  readonly machineId: number;
  /** The owner's key; null when released. */
  readonly owner: string | null;
  /** Whether a live key holds it now (its holder's etcd lease has not expired). */
  readonly alive: boolean;
  /** Whether its owner renewed within the reclaim delay (its reclaim lease has not expired). */
  readonly recent: boolean;
  /** The last published time mark (Unix ms). */
  readonly markMs: number;
  /** Milliseconds since the record was last written (this host's clock against the writer's). */
  readonly ageMs: number;
  readonly host: string | undefined;
  readonly pid: number | undefined;
}

/** Operators' view of a fleet's allocations in etcd: list them, release an id by hand. */
export class EtcdAdmin {
  readonly #hosts: readonly string[];
  readonly #root: string;
  readonly #timeoutMs: number;

  /** Validates the options (INVALID_OPTIONS); connects on each call. */
  constructor(options: EtcdAdminOptions) {
    this.#hosts = checkOption(endpointsOption, 'endpoints', options.endpoints);
    this.#root = checkOption(etcdRootOption, 'root', options.root ?? '/vesta');
    this.#timeoutMs = checkOption(wholeNumber(1, 600_000), 'timeoutMs', options.timeoutMs ?? 5000);
  }

  /** Every allocated id under the root, in id order. */
  async list(): Promise<EtcdMachineIdAllocation[]> {
    return this.#with(async (store) =>
      (await store.readIds()).map((r) => ({
        machineId: r.machineId,
        owner: r.data?.owner ?? null,
        alive: r.live,
        recent: r.recent,
        markMs: r.data?.markMs ?? 0,
        ageMs: Math.max(0, Date.now() - (r.data?.writtenAtMs ?? Date.now())),
        host: r.data?.host,
        pid: r.data?.pid,
      })),
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
    if (!Number.isInteger(machineId) || machineId < 0 || machineId > 1023) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `machine id must be a whole number from 0 to 1023, got ${String(machineId)}`,
      );
    }
    return this.#with(async (store) => {
      const row = (await store.readIds()).find((r) => r.machineId === machineId);
      if (row === undefined) {
        throw new VestaError(
          'NOT_FOUND',
          `machine id ${machineId} is not allocated under ${this.#root}`,
        );
      }
      if (row.data === undefined) {
        throw new VestaError(
          'INVALID_ARGUMENT',
          `machine id ${machineId} holds data this tool cannot read; refusing to touch it`,
        );
      }
      if (row.live && options.force !== true) {
        throw new VestaError(
          'INVALID_ARGUMENT',
          `machine id ${machineId} is held by a live instance (${row.data.owner ?? 'unknown'}); use --force to take it away`,
        );
      }
      if (!(await store.adminRelease(machineId, row.modRevision, row.data))) {
        throw new VestaError(
          'INVALID_ARGUMENT',
          `machine id ${machineId} changed while being released; try again`,
        );
      }
      return {
        machineId,
        owner: row.data.owner,
        alive: row.live,
        recent: row.recent,
        markMs: row.data.markMs,
        ageMs: 0,
        host: row.data.host,
        pid: row.data.pid,
      };
    });
  }

  async #with<T>(work: (store: EtcdStore) => Promise<T>): Promise<T> {
    const store = new EtcdStore({
      hosts: this.#hosts,
      root: this.#root,
      connectTimeoutMs: this.#timeoutMs,
      operationTimeoutMs: this.#timeoutMs,
    });
    try {
      return await work(store);
    } catch (error) {
      if (VestaError.is(error)) throw error;
      throw new VestaError('COORDINATOR_UNAVAILABLE', `etcd request failed: ${String(error)}`, {
        cause: error,
      });
    } finally {
      store.close();
    }
  }
}
