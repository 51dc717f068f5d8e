import { VestaError, type MachineIdLease } from '@vesta/core';
import type { ResolvedZooKeeperMachineIdOptions } from './ZooKeeperMachineIdOptions.js';
import { leaseControls } from './internal/leaseControls.js';
import { RenewalLoop, type LeaseCache, type LeaseFence } from '@vesta/core/kit';
import { decodeEraNode, decodeIdNode, encodeIdNode, encodeJson } from './zk/IdNodeData.js';
import { isZkError, sessionHex, ZK, type ZkClient } from './zk/ZkClient.js';
import type { ZkLayout } from './zk/ZkLayout.js';
import { ZkLeaseConnection } from './zk/ZkLeaseConnection.js';

/** How a lease starts: what {@link ZooKeeperMachineIdProvider} found and claimed. */
export interface LeaseStart {
  readonly zk: ZkClient;
  readonly layout: ZkLayout;
  readonly options: ResolvedZooKeeperMachineIdOptions;
  readonly cache: LeaseCache | undefined;
  readonly machineId: number;
  readonly key: string;
  /** Whether the key outlives this process (given, or kept in the state dir). */
  readonly stableKey: boolean;
  readonly instance: string;
  /**
   * The allocation era the id was claimed under (see enterAllocationEra), or, from the cache, the
   * one it was last confirmed under (undefined in caches of older versions).
   */
  readonly era: string | undefined;
  readonly genMethod: number;
  readonly type: number;
  readonly notBeforeMs: number;
  /** The mark the id carried before this start (nothing below it may be re-used). */
  readonly floorMarkMs: number;
  /** The id node's version after the claim, or undefined when started from the cache. */
  readonly version: number | undefined;
  /** Confirmed by the claim, or, from the cache, held until the end of the cache's validity. */
  readonly fence: LeaseFence;
}

/** A lease's health, as a read-only snapshot (metrics, health checks). */
export interface ZooKeeperMachineIdLeaseStats {
  /** Confirming writes that succeeded (refreshes and re-confirmations). */
  readonly renewals: number;
  /** Renewal turns that confirmed nothing (disconnected, failed, unanswered, or still waiting). */
  readonly missedRenewals: number;
  /** Monotonic ms since the last confirming write was sent; undefined before the first one. */
  readonly confirmedAgeMs: number | undefined;
  /** Issuing is paused: the lease was not confirmed in time (it resumes on the next renewal). */
  readonly fenced: boolean;
  /** The id belongs to someone else now, or ZooKeeper lost it: issuing stopped for good. */
  readonly lost: boolean;
}

/**
 * A machine id held through ZooKeeper. A timer raises the id's time mark every
 * `refreshIntervalMs` with a version-checked write, which also confirms the lease. Issuing is
 * fenced when the last confirmation is older than `fenceAfterMs` (monotonic clock) or the wall
 * clock reaches the mark last published (see LeaseFence); it resumes on the next confirmation.
 * When the id turns out to belong to someone else, the lease is lost for good.
 */
export class ZooKeeperMachineIdLease implements MachineIdLease {
  readonly machineId: number;
  readonly notBeforeMs: number;
  readonly key: string;
  /** What the claim fixed for the life of the lease. */
  readonly #s: LeaseStart;
  readonly #fence: LeaseFence;
  readonly #conn: ZkLeaseConnection;
  readonly #loop: RenewalLoop;
  #era: string | undefined;
  #version: number | undefined;
  #toldMs = 0;
  #needConfirm: boolean;
  /** Set while started from the cache: the cached mark, which the id node must not exceed. */
  #fallbackMarkMs: number | undefined;
  #lost: VestaError | undefined;
  #fenced = false;
  #closed = false;
  #renewals = 0;

  constructor(start: LeaseStart) {
    this.#s = start;
    this.machineId = start.machineId;
    this.notBeforeMs = start.notBeforeMs;
    this.key = start.key;
    this.#fence = start.fence;
    this.#era = start.era;
    this.#version = start.version;
    this.#needConfirm = start.version === undefined;
    this.#fallbackMarkMs = start.version === undefined ? start.floorMarkMs : undefined;
    this.#conn = new ZkLeaseConnection(start.zk, start.options, start.machineId, () => {
      this.#needConfirm = true;
    });
    this.#loop = new RenewalLoop(start.options.time, start.options.refreshIntervalMs, () =>
      this.#renew(),
    );
    if (start.version !== undefined) this.#writeCache(start.fence.markMs);
    leaseControls.set(this, {
      abandon: () => this.#abandon(),
      session: () => this.#conn.zk.session(),
    });
  }

  /** Throws MACHINE_ID_LEASE_LOST while the lease is not confirmed recently enough, or is lost. */
  assertValid(): void {
    if (this.#lost !== undefined) throw this.#lost;
    if (this.#fence.fenced) {
      throw new VestaError(
        'MACHINE_ID_LEASE_LOST',
        `machine id ${this.machineId}: the ZooKeeper lease was not confirmed within ${this.#fence.fenceAfterMs} ms; issuing is paused`,
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

  /** True once the id was found to belong to another instance: this lease never resumes. */
  get lost(): boolean {
    return this.#lost !== undefined;
  }

  /** The ZooKeeper client's connection state, e.g. `SYNC_CONNECTED[3]` (diagnostics). */
  get connectionState(): string {
    return String(this.#conn.zk.client.getState());
  }

  /** Renewals, missed turns, age of the last confirmation, fenced or lost (a frozen snapshot). */
  get stats(): ZooKeeperMachineIdLeaseStats {
    return Object.freeze({
      renewals: this.#renewals,
      missedRenewals: this.#loop.turns - this.#renewals,
      confirmedAgeMs: this.#fence.confirmedAgeMs,
      fenced: this.#fence.fenced,
      lost: this.lost,
    });
  }

  /**
   * Publishes the final mark, drops the live node and closes the session. An instance without a
   * stable key gives the id up (owner cleared, mark kept) so it can be re-used at once.
   */
  async release(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#loop.stop();
    const zk = this.#conn.zk;
    const L = this.#s.layout;
    try {
      if (
        this.#lost === undefined &&
        !this.#needConfirm &&
        this.#version !== undefined &&
        this.#era !== undefined &&
        zk.connected
      ) {
        const markMs = Math.max(this.#toldMs, this.#s.floorMarkMs, this.#s.options.clock());
        await zk.multi([
          { op: 'check', path: L.eraToken(this.#era), version: 0 },
          {
            op: 'setData',
            path: L.idPath(this.machineId),
            data: this.#data(markMs, this.#s.stableKey),
            version: this.#version,
          },
          { op: 'remove', path: L.livePath(this.machineId), version: -1 },
        ]);
        this.#writeCache(markMs);
      }
    } catch (error) {
      this.#s.options.logger.warn(
        { machineId: this.machineId, error: String(error) },
        'could not publish the final time mark; the last one stands',
      );
    } finally {
      this.#conn.close();
    }
  }

  #abandon(): void {
    this.#closed = true;
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId}: the lease was abandoned`,
    );
    this.#loop.stop();
    this.#conn.close();
  }

  #data(markMs: number, keepOwner = true): Buffer {
    return encodeIdNode({
      owner: keepOwner ? this.key : null,
      instance: keepOwner ? this.#s.instance : null,
      markMs,
      genMethod: this.#s.genMethod,
      type: this.#s.type,
    });
  }

  /** One renewal turn: refresh the mark, or re-confirm the id after an expiry or a cached start. */
  async #renew(): Promise<void> {
    if (this.#closed || this.#lost !== undefined) return;
    try {
      if (this.#conn.connected()) {
        if (this.#needConfirm) await this.#confirm();
        else await this.#refresh();
      } else {
        this.#conn.reopenIfStuck();
      }
    } catch (error) {
      if (!VestaError.is(error, 'ZOOKEEPER_UNAVAILABLE')) {
        this.#s.options.logger.warn(
          { machineId: this.machineId, error: String(error) },
          'could not confirm the machine id lease',
        );
      }
    } finally {
      this.#logTransitions();
    }
  }

  #logTransitions(): void {
    if (this.#closed || this.#lost !== undefined) return;
    const fenced = this.#fence.fenced;
    const { logger } = this.#s.options;
    if (fenced && !this.#fenced) {
      logger.error(
        { machineId: this.machineId, fenceAfterMs: this.#fence.fenceAfterMs },
        'machine id lease not confirmed by ZooKeeper in time: issuing is paused',
      );
    } else if (!fenced && this.#fenced) {
      logger.warn(
        { machineId: this.machineId },
        'machine id lease confirmed again: issuing resumes',
      );
    }
    this.#fenced = fenced;
  }

  async #refresh(): Promise<void> {
    const sentAt = this.#fence.sendTime();
    const markMs = this.#fence.markToPublish(this.#toldMs, this.#s.floorMarkMs);
    const L = this.#s.layout;
    const path = L.idPath(this.machineId);
    const era = this.#era;
    const version = this.#version;
    if (era === undefined || version === undefined) {
      this.#needConfirm = true;
      return;
    }
    const zk = this.#conn.zk;
    try {
      // Checking the era's token keeps this write out of a new tree after a data loss, where
      // version numbers start again and could match ours.
      await zk.multi([
        { op: 'check', path: L.eraToken(era), version: 0 },
        { op: 'setData', path, data: this.#data(markMs), version },
      ]);
      this.#confirmed(version + 1, markMs, sentAt);
    } catch (error) {
      if (isZkError(error, ZK.BAD_VERSION) || isZkError(error, ZK.NO_NODE)) {
        if (!(await this.#eraStands(era))) return;
        // A write of ours that timed out may have landed later; anything else means the id moved.
        const node = await zk.getData(path);
        const data = node === undefined ? undefined : decodeIdNode(node.data);
        if (node !== undefined && data?.owner === this.key && data.instance === this.#s.instance) {
          this.#version = node.stat.version;
          return;
        }
        this.#lose(data?.owner ?? null);
        return;
      }
      throw error;
    }
  }

  /** Re-takes the live node after a session expiry, or after a start from the cache. */
  async #confirm(): Promise<void> {
    const L = this.#s.layout;
    const zk = this.#conn.zk;
    const idPath = L.idPath(this.machineId);
    const livePath = L.livePath(this.machineId);
    const era = this.#era ?? (await this.#adoptEra());
    if (era === undefined || !(await this.#eraStands(era))) return;
    const node = await zk.getData(idPath);
    const data = node === undefined ? undefined : decodeIdNode(node.data);
    const fallbackMarkMs = this.#fallbackMarkMs;
    const fromCache = fallbackMarkMs !== undefined;
    const ours =
      node !== undefined &&
      data !== undefined &&
      data.owner === this.key &&
      (fromCache ? data.markMs <= fallbackMarkMs : data.instance === this.#s.instance);
    if (!ours || node === undefined) {
      this.#lose(data?.owner ?? null);
      return;
    }
    const live = await zk.exists(livePath);
    const mine = live !== undefined && sessionHex(live.ephemeralOwner) === zk.sessionId;
    if (live !== undefined && !mine) return; // an earlier session of this key; it goes within its timeout
    const sentAt = this.#fence.sendTime();
    const markMs = this.#fence.markToPublish(this.#toldMs, this.#s.floorMarkMs, data.markMs);
    await zk.multi([
      { op: 'check', path: L.eraToken(era), version: 0 },
      { op: 'setData', path: idPath, data: this.#data(markMs), version: node.stat.version },
      ...(mine
        ? []
        : [
            {
              op: 'create' as const,
              path: livePath,
              data: encodeJson({ owner: this.key, instance: this.#s.instance }),
              ephemeral: true,
            },
          ]),
    ]);
    this.#era = era;
    this.#confirmed(node.stat.version + 1, markMs, sentAt);
    this.#needConfirm = false;
    if (fromCache) {
      this.#fallbackMarkMs = undefined;
      this.#s.options.logger.warn(
        { machineId: this.machineId },
        'ZooKeeper reachable again: the cached machine id is confirmed',
      );
    }
  }

  /**
   * Whether the era this lease holds its id under still stands. Its token is gone when ZooKeeper
   * lost its data: the id may already be handed out again in the new tree (after its fencing
   * wait), so the lease is lost for good instead of writing its nodes again.
   */
  async #eraStands(era: string): Promise<boolean> {
    if ((await this.#conn.zk.exists(this.#s.layout.eraToken(era))) !== undefined) return true;
    this.#lose(null, 'ZooKeeper lost its data (the allocation era it was leased under is gone)');
    return false;
  }

  /**
   * The open era, for a lease started from a cache that did not record one. Without an open era
   * the tree is new or lost its data since the cache was written: the lease is lost.
   */
  async #adoptEra(): Promise<string | undefined> {
    const node = await this.#conn.zk.getData(this.#s.layout.era);
    const data = node === undefined ? undefined : decodeEraNode(node.data);
    const era = data?.open === true ? data.era : undefined;
    if (era === undefined) {
      this.#lose(null, 'ZooKeeper holds no open allocation era (it is new or lost its data)');
    }
    return era;
  }

  #confirmed(version: number, markMs: number, sentAt: number): void {
    this.#version = version;
    this.#fence.confirm(markMs, sentAt);
    this.#renewals++;
    this.#writeCache(markMs);
  }

  #writeCache(markMs: number): void {
    const { cache, stableKey, layout, options } = this.#s;
    if (cache === undefined || !stableKey) return;
    try {
      cache.write({
        root: layout.root,
        key: this.key,
        machineId: this.machineId,
        markMs,
        confirmedAtMs: options.clock(),
        ...(this.#era === undefined ? {} : { era: this.#era }),
      });
    } catch (error) {
      options.logger.warn(
        { error: String(error) },
        'could not cache the machine id lease in the state dir',
      );
    }
  }

  #lose(owner: string | null, why?: string): void {
    const now = why ?? (owner === null ? 'now released' : `now owned by ${owner}`);
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId} is no longer held by this instance (${this.key}); ${now}. Issuing stopped for good: restart to get a new id`,
      { details: { machineId: this.machineId, owner } },
    );
    this.#s.options.logger.error(
      { machineId: this.machineId, key: this.key, owner },
      this.#lost.message,
    );
    this.#loop.stop();
  }
}
