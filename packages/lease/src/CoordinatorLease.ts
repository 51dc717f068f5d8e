import { VestaError } from '@vesta/core';
import type { Logger } from '@vesta/core';
import type { MachineIdLease } from '@vesta/core';
import type { Clock } from '@vesta/core';
import type { TimeSource } from '@vesta/core';
import type { LeaseCache } from './LeaseCache.js';
import type { LeaseFence } from './LeaseFence.js';
import type { LeaseJournal, LeaseJournalEntry } from './LeaseJournal.js';
import type { LeaseClaimant } from './LeaseStore.js';
import type { HoldLoss, HoldRenewal, HoldState, LeaseHold } from './LeaseHold.js';
import { RenewalLoop, type RenewalRun } from './RenewalLoop.js';

/** How a coordinator lease starts: what its provider claimed, or found in its cache. */
export interface CoordinatorLeaseStart {
  /** The coordinator's name in messages: `ZooKeeper`, `Redis`, `PostgreSQL`, `etcd`. */
  readonly coordinator: string;
  readonly options: {
    readonly time: TimeSource;
    readonly clock: Clock;
    readonly logger: Logger;
    readonly refreshIntervalMs: number;
  };
  readonly cache: LeaseCache | undefined;
  /** The allocation namespace the cache records (root, prefix, table). */
  readonly root: string;
  readonly machineId: number;
  /** Who holds it: key, instance, and the kind of ids it issues. */
  readonly claimant: LeaseClaimant;
  /** The era the id was claimed under, or (from the cache) last confirmed under. */
  readonly era: string | undefined;
  readonly notBeforeMs: number;
  /** The mark the id carried before this start: nothing below it is published again. */
  readonly floorMarkMs: number;
  /** False when started from the cache: the coordinator has not confirmed the id yet. */
  readonly confirmed: boolean;
  /** Confirmed by the claim, or, from the cache, held until the end of the cache's validity. */
  readonly fence: LeaseFence;
  /**
   * The store's lease journal: a release appends `released`, and a start from the cache its
   * `claimed` entry once the id is confirmed. None: nothing is journaled.
   */
  readonly journal?: LeaseJournal;
}

/** A lease's health, as a read-only snapshot (metrics, health checks). */
export interface CoordinatorLeaseStats {
  /** Confirming writes that succeeded (renewals and re-confirmations). */
  readonly renewals: number;
  /** Renewal turns that confirmed nothing (unreachable, failed, timed out, still waiting). */
  readonly missedRenewals: number;
  /** Monotonic ms since the last confirming write was sent; undefined before the first one. */
  readonly confirmedAgeMs: number | undefined;
  /** Issuing is paused: the lease was not confirmed in time (it resumes on the next renewal). */
  readonly fenced: boolean;
  /** The id belongs to someone else now, or the coordinator lost it: issuing stopped for good. */
  readonly lost: boolean;
}

const abandons = new WeakMap<object, () => void>();
const holds = new WeakMap<object, LeaseHold>();

/**
 * Drops a coordinator lease as a crashed process would: renewals stop, no final mark is published
 * and nothing is released (the coordinator lets the id expire). For fault-injection harnesses;
 * throws when `lease` is not a {@link CoordinatorLease}.
 */
export function abandonLease(lease: object): void {
  const abandon = abandons.get(lease);
  if (abandon === undefined) throw new TypeError('not a coordinator lease');
  abandon();
}

/**
 * The hold of a coordinator lease, for fault-injection harnesses that reach a store's own state
 * (a ZooKeeper session); throws when `lease` is not a {@link CoordinatorLease}.
 */
export function leaseHold(lease: object): LeaseHold {
  const hold = holds.get(lease);
  if (hold === undefined) throw new TypeError('not a coordinator lease');
  return hold;
}

/**
 * A machine id leased from a coordinator, the same for every store: the renewal loop, the fence
 * (issuing pauses when not confirmed within `fenceAfterMs`, resumes on the next confirmation),
 * loss for good (the id moved, or the coordinator lost its data), the state-dir cache of the last
 * confirmed lease, the journal, the final mark on release, health stats and their log lines. The
 * store's writes are its {@link LeaseHold}'s: each turn's outcome decides here what follows.
 */
export class CoordinatorLease implements MachineIdLease {
  readonly machineId: number;
  readonly notBeforeMs: number;
  readonly key: string;
  /** What the start fixed for the life of the lease. */
  readonly #start: CoordinatorLeaseStart;
  readonly #hold: LeaseHold;
  readonly #fence: LeaseFence;
  readonly #loop: RenewalLoop;
  #era: string | undefined;
  #confirmed: boolean;
  #toldMs = 0;
  #lost: VestaError | undefined;
  #fenced = false;
  #closed = false;
  /** The release under way or done (one, however often `release` is called). */
  #releasing: Promise<void> | undefined;
  #renewals = 0;
  /** When this lease started (Unix ms): the `from` of a cached start's late `claimed` entry. */
  readonly #startedAtMs: number;
  /** A cached start's `claimed` entry on its way (a release appends after it). */
  #claimJournaled: Promise<void> = Promise.resolve();
  /** A cached start's `claimed` entry is still to append (confirmed, and no append landed). */
  #claimToJournal = false;

  constructor(start: CoordinatorLeaseStart, hold: LeaseHold) {
    this.#start = start;
    this.#hold = hold;
    this.machineId = start.machineId;
    this.notBeforeMs = start.notBeforeMs;
    this.key = start.claimant.key;
    this.#fence = start.fence;
    this.#era = start.era;
    this.#confirmed = start.confirmed;
    this.#startedAtMs = start.options.clock();
    // The loop's first turn comes a refresh interval from now.
    // A run given up on (a request that hangs) leaves its connection: the next starts afresh.
    this.#loop = new RenewalLoop(
      start.options.time,
      start.options.refreshIntervalMs,
      (run) => this.#renew(run),
      () => this.#hold.reconnect?.(),
    );
    if (start.confirmed) this.#writeCache(start.fence.markMs);
    abandons.set(this, () => this.#abandon());
    holds.set(this, hold);
  }

  /** Throws MACHINE_ID_LEASE_LOST while the lease is not confirmed recently enough, or is lost. */
  assertValid(): void {
    if (this.#lost !== undefined) throw this.#lost;
    if (this.#fence.fenced) {
      throw new VestaError(
        'MACHINE_ID_LEASE_LOST',
        `machine id ${this.machineId}: the ${this.#start.coordinator} lease was not confirmed within ${this.#fence.fenceAfterMs} ms; issuing is paused`,
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

  /** True once the id was found to be someone else's or lost with the coordinator's data. */
  get lost(): boolean {
    return this.#lost !== undefined;
  }

  /** Renewals, missed turns, age of the last confirmation, fenced or lost (a frozen snapshot). */
  get stats(): CoordinatorLeaseStats {
    return Object.freeze({
      renewals: this.#renewals,
      missedRenewals: this.#loop.turns - this.#renewals,
      confirmedAgeMs: this.#fence.confirmedAgeMs,
      fenced: this.#fence.fenced,
      lost: this.lost,
    });
  }

  /**
   * Publishes the final mark (just past the last id issued) and ends the hold; an instance
   * without a stable key gives the id up so it can be re-used at once. Closes the connection.
   */
  release(): Promise<void> {
    if (this.#releasing === undefined) {
      if (this.#closed) return Promise.resolve();
      this.#releasing = this.#release();
    }
    return this.#releasing;
  }

  async #release(): Promise<void> {
    this.#loop.stop();
    // A renewal in flight completes first: its write moved the record that the release's write
    // is compared against, and a closed lease would not take in that write's answer.
    await this.#loop.settled();
    this.#closed = true;
    const { options, floorMarkMs } = this.#start;
    try {
      if (this.#lost === undefined && this.#confirmed) {
        // A cached start's claimed entry lands while the id is still held: after the release, a
        // newcomer's claim could come first, and this entry would close its tenure early.
        await this.#claimJournaled;
        if (this.#claimToJournal) {
          this.#journalClaim();
          await this.#claimJournaled;
        }
        const markMs = Math.max(this.#toldMs, floorMarkMs, options.clock());
        if (await this.#hold.release(markMs, this.#state())) {
          this.#writeCache(markMs);
          // Unjournaled, the tenure runs on to the next claim's floor mark: wider, never wrong.
          await this.#journal('released', { markMs }).catch((error: unknown) => {
            options.logger.warn(
              { machineId: this.machineId, error: String(error) },
              'could not journal the release of the machine id',
            );
          });
        }
      }
    } catch (error) {
      options.logger.warn(
        { machineId: this.machineId, error: String(error) },
        'could not publish the final time mark; the last one stands',
      );
    } finally {
      await this.#hold.close();
    }
  }

  /** What the hold is told of the lease at a write. */
  #state(): HoldState {
    return { everConfirmed: this.#confirmed, era: this.#era };
  }

  /**
   * A confirming write sent at `sentAt` published `markMs` (under `era`, when it moved): the
   * fence runs again from then and the cache records it. The first confirmation of a lease
   * started from the cache is logged.
   */
  #recordConfirmation(markMs: number, sentAt: number, era = this.#era): void {
    this.#era = era;
    this.#fence.confirm(markMs, sentAt);
    this.#renewals++;
    this.#writeCache(markMs);
    if (!this.#confirmed) {
      this.#confirmed = true;
      this.#start.options.logger.warn(
        { machineId: this.machineId },
        `${this.#start.coordinator} reachable again: the cached machine id is confirmed`,
      );
      this.#claimToJournal = true;
    }
    if (this.#claimToJournal) this.#journalClaim();
  }

  /**
   * Appends a cached start's `claimed` entry, late: the id was issued from the cache since the
   * start, which the entry's time says. A failed append is tried again at the next confirmation
   * (and at the release): without it the journal shows no tenure for ids this start issued.
   */
  #journalClaim(): void {
    this.#claimToJournal = false;
    this.#claimJournaled = this.#journal('claimed', {
      atMs: this.#startedAtMs,
      floorMarkMs: this.#start.floorMarkMs,
    }).catch((error: unknown) => {
      this.#claimToJournal = true;
      this.#start.options.logger.warn(
        { machineId: this.machineId, error: String(error) },
        'could not journal the confirmed claim of the cached machine id; trying again at the next renewal',
      );
    });
  }

  /** Appends an entry of this holder to the store's journal (none: nothing to do). */
  async #journal(
    event: LeaseJournalEntry['event'],
    fields: Partial<Pick<LeaseJournalEntry, 'atMs' | 'floorMarkMs' | 'markMs'>>,
  ): Promise<void> {
    const { claimant, options } = this.#start;
    await (this.#hold.journal ?? this.#start.journal)?.append({
      event,
      machineId: this.machineId,
      holder: claimant.key,
      instance: claimant.instance,
      atMs: options.clock(),
      ...fields,
    });
  }

  /** The id is no longer this instance's: issuing stops for good. */
  #lose(loss: HoldLoss): void {
    const { coordinator, options } = this.#start;
    const [why, details] =
      loss.lost === 'era'
        ? [
            `${coordinator} lost its data (the allocation era it was leased under is gone)`,
            { owner: null },
          ]
        : loss.lost === 'moved'
          ? [
              loss.owner === null ? 'now released' : `now owned by ${loss.owner}`,
              { owner: loss.owner },
            ]
          : [loss.why, loss.owner === undefined ? {} : { owner: loss.owner }];
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId} is no longer held by this instance (${this.key}): ${why}. Issuing stopped for good: restart to get a new id`,
      { details: { machineId: this.machineId, ...details } },
    );
    options.logger.error(
      { machineId: this.machineId, key: this.key, ...details },
      this.#lost.message,
    );
    this.#loop.stop();
    if (this.#hold.closeOnLoss === true) this.#close();
  }

  /** Closes the hold's connection without waiting (a failure changes nothing then). */
  #close(): void {
    void Promise.resolve(this.#hold.close()).catch(() => undefined);
  }

  #abandon(): void {
    this.#closed = true;
    this.#lost = new VestaError(
      'MACHINE_ID_LEASE_LOST',
      `machine id ${this.machineId}: the lease was abandoned`,
    );
    this.#loop.stop();
    this.#close();
  }

  async #renew(run: RenewalRun): Promise<void> {
    if (this.#closed || this.#lost !== undefined) return;
    let sent: { markMs: number; sentAt: number } | undefined;
    let kept: { markMs: number; sentAt: number } | undefined;
    // Closed for this turn too once the loop gave up on it: it sends nothing more.
    const closed = (): boolean => this.#closed || run.abandoned;
    const fence = this.#fence;
    const told = (): number => this.#toldMs;
    const clock = this.#start.options.clock;
    try {
      const renewal = await this.#hold.renew({
        ...this.#state(),
        get closed() {
          return closed();
        },
        mark: (...floorsMs) => {
          const sentAt = this.#fence.sendTime();
          const markMs = this.#fence.markToPublish(
            this.#toldMs,
            this.#start.floorMarkMs,
            ...floorsMs,
          );
          sent = { markMs, sentAt };
          return markMs;
        },
        get markStandsMs() {
          return told() > fence.markMs ? 0 : Math.max(0, fence.markMs - clock());
        },
        // The mark stands as published: the confirmation runs again from the keep-alive.
        keep: () => {
          kept = { markMs: this.#fence.markMs, sentAt: this.#fence.sendTime() };
        },
      });
      // A lease closed meanwhile (or a turn given up on) takes in nothing its write answered.
      if (!closed()) this.#took(renewal, renewal === 'kept' ? kept : sent);
    } catch (error) {
      if (!closed()) this.#renewFailed(error);
    } finally {
      this.#logTransitions();
    }
  }

  /** What a renewal turn's outcome makes of the lease. */
  #took(renewal: HoldRenewal, sent: { markMs: number; sentAt: number } | undefined): void {
    if (renewal === 'missed') return;
    if (renewal === 'confirmed' || renewal === 'kept' || 'confirmedUnder' in renewal) {
      if (sent === undefined) {
        // A defect of the store, not of its connection: reconnecting would drop a healthy one.
        this.#start.options.logger.error(
          { machineId: this.machineId },
          `the ${this.#start.coordinator} hold confirmed a renewal without taking its mark (a defect of the store): the turn is missed`,
        );
        return;
      }
      const era = typeof renewal === 'string' ? this.#era : renewal.confirmedUnder;
      this.#recordConfirmation(sent.markMs, sent.sentAt, era);
      return;
    }
    this.#lose(renewal);
  }

  /** A renewal turn failed (the coordinator unreachable, a timeout...): logged, the turn missed. */
  #renewFailed(error: unknown): void {
    this.#hold.reconnect?.();
    if (this.#hold.quiet !== undefined && VestaError.is(error, this.#hold.quiet)) return;
    this.#start.options.logger.warn(
      { machineId: this.machineId, error: String(error) },
      'could not renew the machine id lease',
    );
  }

  #logTransitions(): void {
    if (this.#closed || this.#lost !== undefined) return;
    const fenced = this.#fence.fenced;
    const { logger } = this.#start.options;
    if (fenced && !this.#fenced) {
      logger.error(
        { machineId: this.machineId, fenceAfterMs: this.#fence.fenceAfterMs },
        `machine id lease not confirmed by ${this.#start.coordinator} in time: issuing is paused`,
      );
    } else if (!fenced && this.#fenced) {
      logger.warn(
        { machineId: this.machineId },
        'machine id lease confirmed again: issuing resumes',
      );
    }
    this.#fenced = fenced;
  }

  #writeCache(markMs: number): void {
    const { cache, claimant, root, options } = this.#start;
    if (cache === undefined || !claimant.stableKey) return;
    try {
      cache.write({
        root,
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
}
