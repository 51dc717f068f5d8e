import { VestaError } from '@vesta/core';
import {
  CoordinatorLease,
  type CoordinatorLeaseStart,
  type CoordinatorLeaseStats,
  type LeaseJournal,
} from '@vesta/lease';
import type { ResolvedZooKeeperMachineIdOptions } from './ZooKeeperMachineIdOptions.js';
import { decodeEraNode, decodeIdNode, encodeIdNode, encodeJson } from './zk/IdNodeData.js';
import { isZkError, sessionHex, ZK, type ZkClient, type ZkSession } from './zk/ZkClient.js';
import type { ZkLayout } from './zk/ZkLayout.js';
import { ZkLeaseConnection } from './zk/ZkLeaseConnection.js';
import { zkJournal } from './zk/zkJournal.js';

/** How a lease starts: what {@link ZooKeeperMachineIdProvider} found and claimed. */
export interface LeaseStart extends Omit<
  CoordinatorLeaseStart,
  'coordinator' | 'root' | 'confirmed'
> {
  readonly zk: ZkClient;
  readonly layout: ZkLayout;
  readonly options: ResolvedZooKeeperMachineIdOptions;
  /** The id node's version after the claim, or undefined when started from the cache. */
  readonly version: number | undefined;
}

/** A lease's health, as a read-only snapshot (metrics, health checks). */
export type ZooKeeperMachineIdLeaseStats = CoordinatorLeaseStats;

/** Set by the class below: reads a lease's private connection (a TypeError for anything else). */
let sessionOf: (lease: ZooKeeperMachineIdLease) => ZkSession;

/**
 * The ZooKeeper session `lease` holds now, to expire it from outside. A test hook: the package
 * does not export it (specs reach it through `testing/leaseControl.ts`).
 */
export function leaseSession(lease: ZooKeeperMachineIdLease): ZkSession {
  return sessionOf(lease);
}

/**
 * A machine id held through ZooKeeper. A timer raises the id's time mark every
 * `refreshIntervalMs` with a version-checked write, which also confirms the lease. Issuing is
 * fenced when the last confirmation is older than `fenceAfterMs` (monotonic clock) or the wall
 * clock reaches the mark last published (see LeaseFence); it resumes on the next confirmation.
 * After a session expiry (or a start from the cache) the id is confirmed again by re-creating its
 * live node. When the id turns out to belong to someone else, the lease is lost for good.
 */
export class ZooKeeperMachineIdLease extends CoordinatorLease {
  readonly #zk: LeaseStart;
  readonly #conn: ZkLeaseConnection;
  #version: number | undefined;
  #needConfirm: boolean;

  static {
    sessionOf = (lease) => lease.#conn.zk.session();
  }

  constructor(start: LeaseStart) {
    super({
      ...start,
      coordinator: 'ZooKeeper',
      root: start.layout.root,
      confirmed: start.version !== undefined,
    });
    this.#zk = start;
    this.#version = start.version;
    this.#needConfirm = start.version === undefined;
    this.#conn = new ZkLeaseConnection(start.zk, start.options, start.machineId, () => {
      this.#needConfirm = true;
    });
  }

  /** The ZooKeeper client's connection state, e.g. `SYNC_CONNECTED[3]` (diagnostics). */
  get connectionState(): string {
    return String(this.#conn.zk.client.getState());
  }

  /** One renewal turn: refresh the mark, or re-confirm the id after an expiry or a cached start. */
  protected async renewTurn(): Promise<void> {
    if (!this.#conn.connected()) {
      this.#conn.reopenIfStuck();
      return;
    }
    if (this.#needConfirm) await this.#confirm();
    else await this.#refresh();
  }

  protected override renewFailed(error: unknown): void {
    if (!VestaError.is(error, 'ZOOKEEPER_UNAVAILABLE')) super.renewFailed(error);
  }

  /** Publishes the final mark and drops the live node (the id node version-checked). */
  protected async releaseHold(markMs: number): Promise<boolean> {
    const zk = this.#conn.zk;
    const L = this.#zk.layout;
    const era = this.era;
    const version = this.#version;
    if (this.#needConfirm || version === undefined || era === undefined || !zk.connected) {
      return false;
    }
    await zk.multi([
      { op: 'check', path: L.eraToken(era), version: 0 },
      {
        op: 'setData',
        path: L.idPath(this.machineId),
        data: this.#data(markMs, this.stableKey),
        version,
      },
      { op: 'remove', path: L.livePath(this.machineId), version: -1 },
    ]);
    return true;
  }

  protected disconnect(): void {
    this.#conn.close();
  }

  /** The journal on the lease's current connection (reopened after a stuck session). */
  protected override get journal(): LeaseJournal {
    return zkJournal(() => this.#conn.zk, this.#zk.layout, this.#zk.options.journalRetention);
  }

  #data(markMs: number, keepOwner = true): Buffer {
    return encodeIdNode(this.holding(markMs, keepOwner));
  }

  async #refresh(): Promise<void> {
    const { markMs, sentAt } = this.nextMark();
    const L = this.#zk.layout;
    const path = L.idPath(this.machineId);
    const era = this.era;
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
      this.#version = version + 1;
      this.recordConfirmation(markMs, sentAt);
    } catch (error) {
      if (isZkError(error, ZK.BAD_VERSION, ZK.NO_NODE)) {
        if (!(await this.#eraStands(era))) return;
        // A write of ours that timed out may have landed later; anything else means the id moved.
        const node = await zk.getData(path);
        const data = node === undefined ? undefined : decodeIdNode(node.data);
        if (node !== undefined && data?.owner === this.key && data.instance === this.instance) {
          this.#version = node.stat.version;
          return;
        }
        this.#loseTo(data?.owner ?? null);
        return;
      }
      throw error;
    }
  }

  /** Re-takes the live node after a session expiry, or after a start from the cache. */
  async #confirm(): Promise<void> {
    const L = this.#zk.layout;
    const zk = this.#conn.zk;
    const idPath = L.idPath(this.machineId);
    const livePath = L.livePath(this.machineId);
    const era = this.era ?? (await this.#adoptEra());
    if (era === undefined || !(await this.#eraStands(era))) return;
    const node = await zk.getData(idPath);
    const data = node === undefined ? undefined : decodeIdNode(node.data);
    // Started from the cache and not confirmed yet: the id node must not be past the cached mark.
    const ours =
      node !== undefined &&
      data !== undefined &&
      data.owner === this.key &&
      (this.everConfirmed
        ? data.instance === this.instance
        : data.markMs <= this.start.floorMarkMs);
    if (!ours || node === undefined) {
      this.#loseTo(data?.owner ?? null);
      return;
    }
    const live = await zk.exists(livePath);
    const mine = live !== undefined && sessionHex(live.ephemeralOwner) === zk.sessionId;
    if (live !== undefined && !mine) return; // an earlier session of this key; it goes within its timeout
    const { markMs, sentAt } = this.nextMark(data.markMs);
    await zk.multi([
      { op: 'check', path: L.eraToken(era), version: 0 },
      { op: 'setData', path: idPath, data: this.#data(markMs), version: node.stat.version },
      ...(mine
        ? []
        : [
            {
              op: 'create' as const,
              path: livePath,
              data: encodeJson({ owner: this.key, instance: this.instance }),
              ephemeral: true,
            },
          ]),
    ]);
    this.#version = node.stat.version + 1;
    this.#needConfirm = false;
    this.recordConfirmation(markMs, sentAt, era);
  }

  /**
   * Whether the era this lease holds its id under still stands. Its token is gone when ZooKeeper
   * lost its data: the id may already be handed out again in the new tree (after its fencing
   * wait), so the lease is lost for good instead of writing its nodes again.
   */
  async #eraStands(era: string): Promise<boolean> {
    if ((await this.#conn.zk.exists(this.#zk.layout.eraToken(era))) !== undefined) return true;
    this.lose('ZooKeeper lost its data (the allocation era it was leased under is gone)', {
      owner: null,
    });
    return false;
  }

  /**
   * The open era, for a lease started from a cache that did not record one. Without an open era
   * the tree is new or lost its data since the cache was written: the lease is lost.
   */
  async #adoptEra(): Promise<string | undefined> {
    const node = await this.#conn.zk.getData(this.#zk.layout.era);
    const data = node === undefined ? undefined : decodeEraNode(node.data);
    const era = data?.open === true ? data.era : undefined;
    if (era === undefined) {
      this.lose('ZooKeeper holds no open allocation era (it is new or lost its data)', {
        owner: null,
      });
    }
    return era;
  }

  #loseTo(owner: string | null): void {
    this.lose(owner === null ? 'now released' : `now owned by ${owner}`, { owner });
  }
}
