import {
  CoordinatorLease,
  type CoordinatorLeaseStart,
  type CoordinatorLeaseStats,
} from '@vesta/lease';
import type { ResolvedEtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import type { EtcdEra, EtcdStore, HeldLeases } from './etcd/EtcdStore.js';
import { keepLeases } from './etcd/keepLeases.js';

/** How a lease starts: what {@link EtcdMachineIdProvider} claimed, or found in its cache. */
export interface EtcdLeaseStart extends Omit<
  CoordinatorLeaseStart,
  'coordinator' | 'root' | 'era' | 'confirmed'
> {
  readonly store: EtcdStore;
  readonly options: ResolvedEtcdMachineIdOptions;
  /** The era the id was claimed under; undefined when started from the cache. */
  readonly era: EtcdEra | undefined;
  /** The era token the cache recorded (a start from the cache). */
  readonly cachedEra: string | undefined;
  /** The record's mod revision after the claim; undefined when started from the cache. */
  readonly written: string | undefined;
  readonly leases: HeldLeases | undefined;
}

/** A lease's health, as a read-only snapshot (metrics, health checks). */
export type EtcdMachineIdLeaseStats = CoordinatorLeaseStats;

/**
 * A machine id leased from etcd: every `refreshIntervalMs` its etcd leases are kept alive, and
 * once the mark last published stands for half the fence or less, the mark is raised in a
 * transaction that requires the era and this holder's last write; fenced when not renewed in
 * time; lost for good when its record moved or vanished or the era changed.
 */
export class EtcdMachineIdLease extends CoordinatorLease {
  readonly #etcd: EtcdLeaseStart;
  #eraRecord: EtcdEra | undefined;
  #written: string | undefined;
  #leases: HeldLeases | undefined;
  /** The highest mark the service told: a turn that writes nothing never stands for one above the mark. */
  #toldMs = 0;

  constructor(start: EtcdLeaseStart) {
    super({
      ...start,
      coordinator: 'etcd',
      root: start.options.root,
      era: start.era?.era ?? start.cachedEra,
      confirmed: start.written !== undefined,
    });
    this.#etcd = start;
    this.#eraRecord = start.era;
    this.#written = start.written;
    this.#leases = start.leases;
  }

  protected async renewTurn(): Promise<void> {
    if (this.#written === undefined) await this.#reconfirm();
    else await this.#refresh(this.#written);
  }

  override onHighWaterMark(markMs: number): void {
    super.onHighWaterMark(markMs);
    this.#toldMs = markMs;
  }

  protected override renewFailed(error: unknown): void {
    this.#etcd.store.reconnect();
    super.renewFailed(error);
  }

  /** Publishes the final mark, deletes the live key and revokes the live etcd lease. */
  protected async releaseHold(markMs: number): Promise<boolean> {
    const { store } = this.#etcd;
    const era = this.#eraRecord;
    if (era === undefined || this.#written === undefined) return false;
    const released = await store.release(
      era,
      this.machineId,
      this.#written,
      this.holding(markMs, this.stableKey),
    );
    // The live key is gone with the release; the live etcd lease would only expire later.
    if (this.#leases !== undefined) await store.revoke(this.#leases.live).catch(() => undefined);
    return released;
  }

  protected disconnect(): void {
    this.#etcd.store.close();
  }

  async #keepLeasesAlive(): Promise<HeldLeases> {
    this.#leases = await keepLeases(this.#etcd.store, this.#leases, this.#etcd.options);
    return this.#leases;
  }

  /**
   * A turn that keeps the etcd leases alive and writes nothing, while the mark last published
   * still stands for more than half the fence (and for all the service told): a keep-alive
   * confirms the hold as a write does, since etcd keeps the live key for at least the fence from
   * when it was sent (its lease's TTL), and the mark stands as published; so the record is written
   * every other turn (with the defaults), where every turn cost a transaction. The era and the
   * record are checked at those writes. False when the turn must write: the mark is due, or a
   * lease expired.
   */
  async #keptAlive(): Promise<boolean> {
    const { fence, options } = this.start;
    const leases = this.#leases;
    const standsMs = fence.markMs - options.clock();
    if (leases === undefined || this.#toldMs > fence.markMs || standsMs <= fence.fenceAfterMs / 2) {
      return false;
    }
    const sentAt = fence.sendTime();
    const alive = await this.#etcd.store.keepAliveAll([leases.live, leases.recent]);
    if (!alive.every(Boolean)) return false;
    if (!this.closed) this.recordConfirmation(fence.markMs, sentAt);
    return true;
  }

  async #refresh(written: string): Promise<void> {
    const era = this.#eraRecord;
    if (era === undefined) return;
    if (await this.#keptAlive()) return;
    const revision = await this.confirmedWrite(
      async (markMs) =>
        this.#etcd.store.renew(
          era,
          this.machineId,
          written,
          this.holding(markMs),
          await this.#keepLeasesAlive(),
          this.instance,
        ),
      'its record moved or vanished, or the allocation era changed (etcd lost its data, or the id was released by hand)',
    );
    if (revision !== undefined) this.#written = revision;
  }

  /** Takes the id back after a start from the cache, if nothing moved meanwhile. */
  async #reconfirm(): Promise<void> {
    const { store, cachedEra, floorMarkMs } = this.#etcd;
    const era = await store.readEra();
    if (era === undefined || !era.open || era.era !== cachedEra) {
      this.lose('etcd holds another allocation era than the cached lease (it lost its data)');
      return;
    }
    const [row] = (await store.read({ ids: [this.machineId] })).rows;
    if (
      row === undefined ||
      row.live ||
      row.data === undefined ||
      row.data.owner !== this.key ||
      row.data.markMs > floorMarkMs
    ) {
      this.lose('the cached id was taken by another holder meanwhile');
      return;
    }
    const revision = await this.confirmedWrite(
      async (markMs) => {
        const claimed = await store.claim(
          era,
          this.machineId,
          row.modRevision,
          false,
          this.holding(markMs),
          await this.#keepLeasesAlive(),
          this.instance,
          [store.indexOp(this.key, this.machineId)],
        );
        return claimed?.revision;
      },
      'the cached id was taken by another holder meanwhile',
      era.era,
    );
    if (revision === undefined) return;
    this.#eraRecord = era;
    this.#written = revision;
  }
}
