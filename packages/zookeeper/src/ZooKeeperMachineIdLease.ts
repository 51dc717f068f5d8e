import { hostname } from 'node:os';
import { VestaError, type MachineIdLease } from '@vesta/core';
import type { LeaseCache } from './LeaseCache.js';
import type { ResolvedZooKeeperMachineIdOptions } from './ZooKeeperMachineIdOptions.js';
import { decodeEraNode, decodeIdNode, encodeJson } from './zk/IdNodeData.js';
import { isZkError, sessionHex, ZK, ZkClient } from './zk/ZkClient.js';
import type { ZkLayout } from './zk/ZkLayout.js';

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
  /** The mark confirmed by the claim (or, from the cache, the end of the cache's validity). */
  readonly ackMarkMs: number;
  /** Monotonic time (performance.now) at which the claim's confirmation runs out. */
  readonly deadline: number;
}

/**
 * A machine id held through ZooKeeper. A timer raises the id's time mark every
 * `refreshIntervalMs` with a version-checked write, which also confirms the lease. Issuing is
 * fenced when the last confirmation is older than `fenceAfterMs` (monotonic clock) or the wall
 * clock reaches the mark last published; it resumes on the next confirmation. When the id turns
 * out to belong to someone else, the lease is lost for good.
 */
export class ZooKeeperMachineIdLease implements MachineIdLease {
  readonly machineId: number;
  readonly notBeforeMs: number;
  readonly key: string;
  readonly #o: ResolvedZooKeeperMachineIdOptions;
  readonly #layout: ZkLayout;
  readonly #cache: LeaseCache | undefined;
  readonly #stableKey: boolean;
  readonly #instance: string;
  readonly #genMethod: number;
  readonly #type: number;
  readonly #floorMarkMs: number;
  #zk: ZkClient;
  #era: string | undefined;
  #version: number | undefined;
  #ackMarkMs: number;
  #deadline: number;
  #toldMs = 0;
  #needConfirm: boolean;
  #fallbackMarkMs: number | undefined;
  #lost: VestaError | undefined;
  #fenced = false;
  #busy = false;
  #closed = false;
  /** Since when (monotonic ms) the client has been disconnected, while it is. */
  #disconnectedSince: number | undefined;
  readonly #timer: NodeJS.Timeout;

  constructor(start: LeaseStart) {
    this.machineId = start.machineId;
    this.notBeforeMs = start.notBeforeMs;
    this.key = start.key;
    this.#o = start.options;
    this.#layout = start.layout;
    this.#cache = start.cache;
    this.#stableKey = start.stableKey;
    this.#instance = start.instance;
    this.#genMethod = start.genMethod;
    this.#type = start.type;
    this.#floorMarkMs = start.floorMarkMs;
    this.#zk = start.zk;
    this.#era = start.era;
    this.#version = start.version;
    this.#ackMarkMs = start.ackMarkMs;
    this.#deadline = start.deadline;
    this.#needConfirm = start.version === undefined;
    this.#fallbackMarkMs = start.version === undefined ? start.floorMarkMs : undefined;
    this.#watch(this.#zk);
    this.#timer = setInterval(() => void this.#tick(), this.#o.refreshIntervalMs);
    this.#timer.unref();
    if (start.version !== undefined) this.#writeCache(this.#ackMarkMs);
  }

  /** Throws MACHINE_ID_LEASE_LOST while the lease is not confirmed recently enough, or is lost. */
  assertValid(): void {
    if (this.#lost !== undefined) throw this.#lost;
    if (performance.now() > this.#deadline || this.#o.clock() >= this.#ackMarkMs) {
      throw new VestaError(
        'MACHINE_ID_LEASE_LOST',
        `machine id ${this.machineId}: the ZooKeeper lease was not confirmed within ${this.#o.fenceAfterMs} ms; issuing is paused`,
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
    try {
      this.assertValid();
      return true;
    } catch {
      return false;
    }
  }

  /** True once the id was found to belong to another instance: this lease never resumes. */
  get lost(): boolean {
    return this.#lost !== undefined;
  }

  /** The ZooKeeper client's connection state, e.g. `SYNC_CONNECTED[3]` (diagnostics). */
  get connectionState(): string {
    return String(this.#zk.client.getState());
  }

  /** The ZooKeeper session (diagnostics; tests use it to expire the session). */
  session(): { id: Buffer; password: Buffer } {
    return this.#zk.session();
  }

  /**
   * Publishes the final mark, drops the live node and closes the session. An instance without a
   * stable key gives the id up (owner cleared, mark kept) so it can be re-used at once.
   */
  async release(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    const zk = this.#zk;
    try {
      if (
        this.#lost === undefined &&
        !this.#needConfirm &&
        this.#version !== undefined &&
        this.#era !== undefined &&
        zk.connected
      ) {
        const markMs = Math.max(this.#toldMs, this.#floorMarkMs, this.#o.clock());
        const data = this.#data(markMs, this.#stableKey);
        await zk.multi([
          { op: 'check', path: this.#layout.eraToken(this.#era), version: 0 },
          {
            op: 'setData',
            path: this.#layout.idPath(this.machineId),
            data,
            version: this.#version,
          },
          { op: 'remove', path: this.#layout.livePath(this.machineId), version: -1 },
        ]);
        this.#writeCache(markMs);
      }
    } catch (error) {
      this.#o.logger.warn(
        { machineId: this.machineId, error: String(error) },
        'could not publish the final time mark; the last one stands',
      );
    } finally {
      zk.close();
    }
  }

  /**
   * Stops at once without a final mark, as a crash would: the id node keeps the last mark and
   * the live node goes with the session. For tests and emergency stops.
   */
  abandon(): void {
    this.#closed = true;
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId}: the lease was abandoned`,
    );
    clearInterval(this.#timer);
    this.#zk.close();
  }

  #data(markMs: number, keepOwner = true): Buffer {
    return encodeJson({
      owner: keepOwner ? this.key : null,
      instance: keepOwner ? this.#instance : null,
      markMs,
      genMethod: this.#genMethod,
      type: this.#type,
      host: hostname(),
      pid: process.pid,
    });
  }

  #watch(zk: ZkClient): void {
    zk.client.on('expired', () => {
      if (zk !== this.#zk || this.#closed) return;
      this.#o.logger.warn(
        { machineId: this.machineId },
        'ZooKeeper session expired; reconnecting to re-confirm the machine id',
      );
      this.#needConfirm = true;
      zk.close();
      const { zk: next } = ZkClient.open(this.#o.connect, this.#o);
      this.#zk = next;
      this.#watch(next);
    });
  }

  async #tick(): Promise<void> {
    if (this.#busy || this.#closed || this.#lost !== undefined) return;
    this.#busy = true;
    try {
      if (this.#zk.connected) {
        this.#disconnectedSince = undefined;
        if (this.#needConfirm) await this.#confirm();
        else await this.#refresh();
      } else {
        this.#reopenIfStuck();
      }
    } catch (error) {
      if (!VestaError.is(error, 'ZOOKEEPER_UNAVAILABLE')) {
        this.#o.logger.warn(
          { machineId: this.machineId, error: String(error) },
          'could not confirm the machine id lease',
        );
      }
    } finally {
      this.#busy = false;
      this.#logTransitions();
    }
  }

  /**
   * node-zookeeper-client can stay disconnected for good after its server restarts (seen here:
   * a SIGKILLed ZooKeeper back within seconds, the clients never reconnecting). A client
   * disconnected for longer than `connectTimeoutMs` is replaced by a new one that resumes the
   * same session, so the live node stays ours; if the session is gone, the expiry path re-confirms.
   */
  #reopenIfStuck(): void {
    const now = performance.now();
    if (this.#disconnectedSince === undefined) {
      this.#disconnectedSince = now;
      return;
    }
    if (now - this.#disconnectedSince < this.#o.connectTimeoutMs) return;
    this.#disconnectedSince = now;
    const stuck = this.#zk;
    const session = stuck.session();
    stuck.close();
    const { zk } = ZkClient.open(this.#o.connect, this.#o, session);
    this.#zk = zk;
    this.#watch(zk);
    this.#o.logger.warn(
      { machineId: this.machineId },
      'ZooKeeper client disconnected too long; reconnecting with the same session',
    );
  }

  #logTransitions(): void {
    if (this.#closed || this.#lost !== undefined) return;
    const fenced = !this.valid;
    if (fenced && !this.#fenced) {
      this.#o.logger.error(
        { machineId: this.machineId, fenceAfterMs: this.#o.fenceAfterMs },
        'machine id lease not confirmed by ZooKeeper in time: issuing is paused',
      );
    } else if (!fenced && this.#fenced) {
      this.#o.logger.warn(
        { machineId: this.machineId },
        'machine id lease confirmed again: issuing resumes',
      );
    }
    this.#fenced = fenced;
  }

  async #refresh(): Promise<void> {
    const sentAt = performance.now();
    const markMs = Math.max(
      this.#toldMs,
      this.#floorMarkMs,
      this.#o.clock() + this.#o.fenceAfterMs,
    );
    const path = this.#layout.idPath(this.machineId);
    const era = this.#era;
    const version = this.#version;
    if (era === undefined || version === undefined) {
      this.#needConfirm = true;
      return;
    }
    try {
      // Checking the era's token keeps this write out of a new tree after a data loss, where
      // version numbers start again and could match ours.
      await this.#zk.multi([
        { op: 'check', path: this.#layout.eraToken(era), version: 0 },
        { op: 'setData', path, data: this.#data(markMs), version },
      ]);
      this.#confirmed(version + 1, markMs, sentAt);
    } catch (error) {
      if (isZkError(error, ZK.BAD_VERSION) || isZkError(error, ZK.NO_NODE)) {
        if (!(await this.#eraStands(era))) return;
        // A write of ours that timed out may have landed later; anything else means the id moved.
        const node = await this.#zk.getData(path);
        const data = node === undefined ? undefined : decodeIdNode(node.data);
        if (node !== undefined && data?.owner === this.key && data.instance === this.#instance) {
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
    const idPath = this.#layout.idPath(this.machineId);
    const livePath = this.#layout.livePath(this.machineId);
    const era = this.#era ?? (await this.#adoptEra());
    if (era === undefined || !(await this.#eraStands(era))) return;
    const node = await this.#zk.getData(idPath);
    const data = node === undefined ? undefined : decodeIdNode(node.data);
    const fallbackMarkMs = this.#fallbackMarkMs;
    const fromCache = fallbackMarkMs !== undefined;
    const ours =
      node !== undefined &&
      data !== undefined &&
      data.owner === this.key &&
      (fromCache ? data.markMs <= fallbackMarkMs : data.instance === this.#instance);
    if (!ours || node === undefined) {
      this.#lose(data?.owner ?? null);
      return;
    }
    const live = await this.#zk.exists(livePath);
    const mine = live !== undefined && sessionHex(live.ephemeralOwner) === this.#zk.sessionId;
    if (live !== undefined && !mine) return; // an earlier session of this key; it goes within its timeout
    const sentAt = performance.now();
    const markMs = Math.max(
      this.#toldMs,
      this.#floorMarkMs,
      data.markMs,
      this.#o.clock() + this.#o.fenceAfterMs,
    );
    await this.#zk.multi([
      { op: 'check', path: this.#layout.eraToken(era), version: 0 },
      { op: 'setData', path: idPath, data: this.#data(markMs), version: node.stat.version },
      ...(mine
        ? []
        : [
            {
              op: 'create' as const,
              path: livePath,
              data: encodeJson({ owner: this.key, instance: this.#instance }),
              ephemeral: true,
            },
          ]),
    ]);
    this.#era = era;
    this.#confirmed(node.stat.version + 1, markMs, sentAt);
    this.#needConfirm = false;
    if (fromCache) {
      this.#fallbackMarkMs = undefined;
      this.#o.logger.warn(
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
    if ((await this.#zk.exists(this.#layout.eraToken(era))) !== undefined) return true;
    this.#lose(null, 'ZooKeeper lost its data (the allocation era it was leased under is gone)');
    return false;
  }

  /**
   * The open era, for a lease started from a cache that did not record one. Without an open era
   * the tree is new or lost its data since the cache was written: the lease is lost.
   */
  async #adoptEra(): Promise<string | undefined> {
    const node = await this.#zk.getData(this.#layout.era);
    const data = node === undefined ? undefined : decodeEraNode(node.data);
    const era = data?.open === true ? data.era : undefined;
    if (era === undefined) {
      this.#lose(null, 'ZooKeeper holds no open allocation era (it is new or lost its data)');
    }
    return era;
  }

  #confirmed(version: number, markMs: number, sentAt: number): void {
    this.#version = version;
    this.#ackMarkMs = markMs;
    this.#deadline = sentAt + this.#o.fenceAfterMs;
    this.#writeCache(markMs);
  }

  #writeCache(markMs: number): void {
    if (this.#cache === undefined || !this.#stableKey) return;
    try {
      this.#cache.write({
        root: this.#layout.root,
        key: this.key,
        machineId: this.machineId,
        markMs,
        confirmedAtMs: this.#o.clock(),
        ...(this.#era === undefined ? {} : { era: this.#era }),
      });
    } catch (error) {
      this.#o.logger.warn(
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
    this.#o.logger.error({ machineId: this.machineId, key: this.key, owner }, this.#lost.message);
    clearInterval(this.#timer);
  }
}
