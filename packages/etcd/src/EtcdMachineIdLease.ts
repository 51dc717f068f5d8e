import { VestaError, type MachineIdLease } from '@vesta/core';
import { RenewalLoop, type LeaseCache, type LeaseFence } from '@vesta/core/kit';
import type { ResolvedEtcdMachineIdOptions } from './EtcdMachineIdOptions.js';
import { leaseControls } from './internal/leaseControls.js';
import {
  liveTtlMs,
  type EtcdEra,
  type EtcdStore,
  type HeldLeases,
  type IdRecordData,
} from './etcd/EtcdStore.js';

/** How a lease starts: what {@link EtcdMachineIdProvider} claimed, or found in its cache. */
export interface EtcdLeaseStart {
  readonly store: EtcdStore;
  readonly options: ResolvedEtcdMachineIdOptions;
  readonly cache: LeaseCache | undefined;
  readonly machineId: number;
  readonly key: string;
  readonly stableKey: boolean;
  readonly instance: string;
  /** The era the id was claimed under; undefined when started from the cache. */
  readonly era: EtcdEra | undefined;
  /** The era token the cache recorded (a start from the cache). */
  readonly cachedEra: string | undefined;
  /** The record's mod revision after the claim; undefined when started from the cache. */
  readonly written: string | undefined;
  readonly leases: HeldLeases | undefined;
  readonly genMethod: number;
  readonly type: number;
  readonly notBeforeMs: number;
  readonly floorMarkMs: number;
  readonly fence: LeaseFence;
}

/** A lease's health, as a read-only snapshot (metrics, health checks). */
export interface EtcdMachineIdLeaseStats {
  /** Renewals that succeeded (keep-alive and mark). */
  readonly renewals: number;
  /** Renewal turns that confirmed nothing (unreachable, failed, timed out). */
  readonly missedRenewals: number;
  /** Monotonic ms since the last confirming renewal was sent; undefined before the first one. */
  readonly confirmedAgeMs: number | undefined;
  /** Issuing is paused: the lease was not renewed in time (it resumes on the next renewal). */
  readonly fenced: boolean;
  /** The id belongs to someone else now, or etcd lost it: issuing stopped for good. */
  readonly lost: boolean;
}

/**
 * A machine id leased from etcd: every `refreshIntervalMs` its etcd leases are kept alive and
 * the mark is raised in a transaction that requires the era and this holder's last write; fenced
 * when not renewed in time; lost for good when its record moved or vanished or the era changed.
 */
export class EtcdMachineIdLease implements MachineIdLease {
  readonly machineId: number;
  readonly notBeforeMs: number;
  readonly key: string;
  readonly #s: EtcdLeaseStart;
  readonly #fence: LeaseFence;
  readonly #loop: RenewalLoop;
  #era: EtcdEra | undefined;
  #written: string | undefined;
  #leases: HeldLeases | undefined;
  #toldMs = 0;
  #lost: VestaError | undefined;
  #fenced = false;
  #closed = false;
  #renewals = 0;

  constructor(start: EtcdLeaseStart) {
    this.#s = start;
    this.machineId = start.machineId;
    this.notBeforeMs = start.notBeforeMs;
    this.key = start.key;
    this.#fence = start.fence;
    this.#era = start.era;
    this.#written = start.written;
    this.#leases = start.leases;
    this.#loop = new RenewalLoop(start.options.time, start.options.refreshIntervalMs, () =>
      this.#renew(),
    );
    if (start.written !== undefined) this.#writeCache(start.fence.markMs);
    leaseControls.set(this, { abandon: () => this.#abandon() });
  }

  /** Throws MACHINE_ID_LEASE_LOST while the lease is not renewed recently enough, or is lost. */
  assertValid(): void {
    if (this.#lost !== undefined) throw this.#lost;
    if (this.#fence.fenced) {
      throw new VestaError(
        'MACHINE_ID_LEASE_LOST',
        `machine id ${this.machineId}: the etcd lease was not renewed within ${this.#fence.fenceAfterMs} ms; issuing is paused`,
        { details: { machineId: this.machineId } },
      );
    }
  }

  /** The service raises its mark while it runs and lowers it to just past its last id at close. */
  onHighWaterMark(markMs: number): void {
    this.#toldMs = markMs;
  }

  /** Whether the lease is confirmed now (not fenced, not lost). */
  get valid(): boolean {
    return this.#lost === undefined && !this.#fence.fenced;
  }

  /** True once the id was found to belong to another instance or lost with etcd's data. */
  get lost(): boolean {
    return this.#lost !== undefined;
  }

  /** Renewals, missed turns, age of the last confirmation, fenced or lost (a frozen snapshot). */
  get stats(): EtcdMachineIdLeaseStats {
    return Object.freeze({
      renewals: this.#renewals,
      missedRenewals: this.#loop.turns - this.#renewals,
      confirmedAgeMs: this.#fence.confirmedAgeMs,
      fenced: this.#fence.fenced,
      lost: this.lost,
    });
  }

  /**
   * Publishes the final mark, deletes the live key and revokes the live lease; an instance
   * without a stable key gives the id up (owner cleared, mark kept). Closes the client.
   */
  async release(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#loop.stop();
    const { store, options } = this.#s;
    try {
      if (this.#lost === undefined && this.#era !== undefined && this.#written !== undefined) {
        const markMs = Math.max(this.#toldMs, this.#s.floorMarkMs, options.clock());
        const released = await store.release(
          this.#era,
          this.machineId,
          this.#written,
          this.#record(markMs, this.#s.stableKey),
        );
        if (released) this.#writeCache(markMs);
        if (this.#leases !== undefined) await store.revoke(this.#leases.live);
      }
    } catch (error) {
      options.logger.warn(
        { machineId: this.machineId, error: String(error) },
        'could not publish the final time mark; the last one stands',
      );
    } finally {
      store.close();
    }
  }

  #abandon(): void {
    this.#closed = true;
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId}: the lease was abandoned`,
    );
    this.#loop.stop();
    this.#s.store.close();
  }

  #record(markMs: number, keepOwner = true): IdRecordData {
    return {
      owner: keepOwner ? this.key : null,
      instance: keepOwner ? this.#s.instance : null,
      markMs,
      genMethod: this.#s.genMethod,
      type: this.#s.type,
    };
  }

  async #renew(): Promise<void> {
    if (this.#closed || this.#lost !== undefined) return;
    try {
      if (this.#written === undefined) await this.#reconfirm();
      else await this.#refresh(this.#written);
    } catch (error) {
      if (!this.#closed) this.#s.store.reconnect();
      this.#s.options.logger.warn(
        { machineId: this.machineId, error: String(error) },
        'could not renew the machine id lease',
      );
    } finally {
      this.#logTransitions();
    }
  }

  /** Live and recent etcd leases kept alive, or granted anew when etcd let them expire. */
  async #keepLeasesAlive(): Promise<HeldLeases> {
    const { store, options } = this.#s;
    const held = this.#leases;
    const keep = async (id: string | undefined, ttlMs: number): Promise<string> =>
      id !== undefined && (await store.keepAlive(id)) ? id : store.grant(ttlMs);
    const [live, recent] = await Promise.all([
      keep(held?.live, liveTtlMs(options.fenceAfterMs)),
      keep(held?.recent, options.reclaimAfterMs),
    ]);
    this.#leases = { live, recent };
    return this.#leases;
  }

  async #refresh(written: string): Promise<void> {
    const era = this.#era;
    if (era === undefined) return;
    const sentAt = this.#fence.sendTime();
    const markMs = this.#fence.markToPublish(this.#toldMs, this.#s.floorMarkMs);
    const leases = await this.#keepLeasesAlive();
    const revision = await this.#s.store.renew(
      era,
      this.machineId,
      written,
      this.#record(markMs),
      leases,
      this.#s.instance,
    );
    if (this.#closed) return;
    if (revision === undefined) {
      this.#lose(
        'its record moved or vanished, or the allocation era changed (etcd lost its data, or the id was released by hand)',
      );
      return;
    }
    this.#written = revision;
    this.#confirm(markMs, sentAt);
  }

  /** Takes the id back after a start from the cache, if nothing moved meanwhile. */
  async #reconfirm(): Promise<void> {
    const { store, options, instance } = this.#s;
    const era = await store.readEra();
    if (era === undefined || !era.open || era.era !== this.#s.cachedEra) {
      this.#lose('etcd holds another allocation era than the cached lease (it lost its data)');
      return;
    }
    const row = (await store.readIds()).find((r) => r.machineId === this.machineId);
    if (
      row === undefined ||
      row.live ||
      row.data === undefined ||
      row.data.owner !== this.key ||
      row.data.markMs > this.#s.floorMarkMs
    ) {
      this.#lose('the cached id was taken by another holder meanwhile');
      return;
    }
    const sentAt = this.#fence.sendTime();
    const markMs = this.#fence.markToPublish(this.#toldMs, this.#s.floorMarkMs);
    const leases = await this.#keepLeasesAlive();
    const revision = await store.claim(
      era,
      this.machineId,
      row.modRevision,
      false,
      this.#record(markMs),
      leases,
      instance,
    );
    if (this.#closed) return;
    if (revision === undefined) {
      this.#lose('the cached id was taken by another holder meanwhile');
      return;
    }
    this.#era = era;
    this.#written = revision;
    this.#confirm(markMs, sentAt);
    options.logger.warn(
      { machineId: this.machineId },
      'etcd reachable again: the cached machine id is confirmed',
    );
  }

  #confirm(markMs: number, sentAt: number): void {
    this.#fence.confirm(markMs, sentAt);
    this.#renewals++;
    this.#writeCache(markMs);
  }

  #logTransitions(): void {
    if (this.#closed || this.#lost !== undefined) return;
    const fenced = this.#fence.fenced;
    const { logger } = this.#s.options;
    if (fenced && !this.#fenced) {
      logger.error(
        { machineId: this.machineId, fenceAfterMs: this.#fence.fenceAfterMs },
        'machine id lease not renewed in etcd in time: issuing is paused',
      );
    } else if (!fenced && this.#fenced) {
      logger.warn({ machineId: this.machineId }, 'machine id lease renewed again: issuing resumes');
    }
    this.#fenced = fenced;
  }

  #writeCache(markMs: number): void {
    const { cache, stableKey, options } = this.#s;
    if (cache === undefined || !stableKey) return;
    const era = this.#era?.era ?? this.#s.cachedEra;
    try {
      cache.write({
        root: options.root,
        key: this.key,
        machineId: this.machineId,
        markMs,
        confirmedAtMs: options.clock(),
        ...(era === undefined ? {} : { era }),
      });
    } catch (error) {
      options.logger.warn(
        { error: String(error) },
        'could not cache the machine id lease in the state dir',
      );
    }
  }

  #lose(why: string): void {
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId} is no longer held by this instance (${this.key}): ${why}. Issuing stopped for good: restart to get a new id`,
      { details: { machineId: this.machineId } },
    );
    this.#s.options.logger.error({ machineId: this.machineId, key: this.key }, this.#lost.message);
    this.#loop.stop();
  }
}
