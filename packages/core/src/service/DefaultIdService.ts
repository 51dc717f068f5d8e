import { randomFillSync } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { invalidOptions, VestaError } from '../errors/VestaError.js';
import type { Id, IdConverter, MakeIdFields } from '../codec/IdConverter.js';
import type { TimeBounds, TimeBoundsFilter } from '../codec/IdConverter.js';
import { formatId, type IdForm, parseId } from '../codec/IdForm.js';
import { acquireHostLock, type HostLock } from '../identity/acquireHostLock.js';
import { checkStoredMark, hostLockKey, identityDigest } from '../identity/IdIdentity.js';
import type { IdIdentity, StoredMark } from '../identity/IdIdentity.js';
import type { IdMeta } from '../layout/IdMeta.js';
import type { IdType } from '../layout/IdType.js';
import type { MachineIdRange } from '../layout/machineRanges.js';
import type { MachineIdLease } from '../machine-id/MachineIdProvider.js';
import { newClaim, type Claim, type IdPopulator } from '../populator/IdPopulator.js';
import { MarkCell, markCells, SharedFence } from '../populator/SharedIdState.js';
import type { SharedIdState } from '../populator/SharedIdState.js';
import type { HighWaterMark } from '../state/HighWaterMark.js';
import type { TimeMarkStore } from '../state/TimeMarkStore.js';
import { sleepOn, type Clock } from '../time/TimeSource.js';
import type { Timer } from '../time/Timer.js';
import { TOKENS } from '../tokens.js';
import { composeUuid7, UUID7, uuid7Flags } from '../uuid/uuid7Bits.js';
import type { IdServiceHealth, IdServiceInfo, SyncIdService } from './IdService.js';
import type { ResolvedIdServiceOptions } from './IdServiceOptions.js';

const { STARTED, FENCE, IDENTITY } = MarkCell;
/** How often an owner of shared state tells the threads that joined it whether its lease holds. */
const FENCE_WATCH_MS = 50;

/** The one rule for a batch's size everywhere: a whole number from 1 to `maxBatch`, else INVALID_ARGUMENT. */
export function checkBatchCount(count: number, maxBatch: number): void {
  if (!Number.isInteger(count) || count < 1 || count > maxBatch) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `count must be a whole number from 1 to ${maxBatch}, got ${String(count)}`,
      { details: { count: String(count), maxBatch } },
    );
  }
}

/**
 * The id service (`TOKENS.IdService`). Members are TypeScript-private, not `#private`: esbuild
 * compiles a decorated class's `#private` members into WeakMap lookups, dearer than an id.
 */
@injectable()
export class DefaultIdService implements SyncIdService {
  private readonly layout: IdMeta;
  private readonly cells: Int32Array;
  private readonly out = newClaim();
  private readonly seqMultiplier: number;
  private readonly seqFits: boolean;
  private readonly seqStep: bigint;
  private baseTime = -1;
  private base = 0n;
  /** The last id composed, and its time and sequence: the next sequence is one add away. */
  private lastTime = -1;
  private lastSeq = -1;
  private last = 0n;
  private closed = false;
  private member = false;
  private fenceWatch: NodeJS.Timeout | undefined;
  private hostLock: HostLock | undefined;
  /** Why this layout cannot issue UUIDs, else undefined. */
  private readonly uuidRefusal: string | undefined;
  private readonly uuidFlags: number;
  /** The last UUID's time unit and its ms within it: ms never go back within a unit. */
  private uuidUnit = -1;
  private uuidMs = 0;
  private readonly random = new Uint32Array(512);
  private randomAt = 512;

  constructor(
    @inject(TOKENS.Options) private readonly options: ResolvedIdServiceOptions,
    @inject(TOKENS.IdConverter) private readonly codec: IdConverter,
    @inject(TOKENS.Timer) private readonly timer: Timer,
    @inject(TOKENS.IdPopulator) private readonly populator: IdPopulator,
    @inject(TOKENS.MachineIdLease) private readonly lease: MachineIdLease,
    @inject(TOKENS.HighWaterMark) private readonly mark: HighWaterMark,
    @inject(TOKENS.TimeMarkStore) private readonly store: TimeMarkStore,
    @inject(TOKENS.SharedIdState) shared: SharedIdState,
    @inject(TOKENS.IdIdentity) private readonly identity: IdIdentity,
    @inject(TOKENS.MachineIdRange) readonly machineIdRange: MachineIdRange,
  ) {
    this.layout = codec.layout;
    this.cells = markCells(shared.buffer);
    const { seq, machine } = codec.layout;
    this.seqMultiplier = 2 ** seq.start;
    this.seqFits = seq.start + seq.bits <= 53;
    this.seqStep = 1n << seq.startBig;
    this.uuidRefusal =
      seq.bits > UUID7.counterBits
        ? `a sequence of ${seq.bits} bits does not fit a UUID's ${UUID7.counterBits}-bit counter`
        : machine.bits > UUID7.machineBits
          ? `a machine id of ${machine.bits} bits does not fit a UUID's ${UUID7.machineBits} bits`
          : identity.version > 1 || identity.genMethod > 3
            ? `id version ${identity.version} and genMethod ${identity.genMethod} do not fit a UUID's 1 and 2 bits`
            : undefined;
    this.uuidFlags = uuid7Flags(identity.genMethod, codec.layout.idType, identity.version);
  }

  get machineId(): number {
    return this.lease.machineId;
  }

  /** Joins shared state another service started, or takes the host lock and waits for the marks. */
  async start(): Promise<void> {
    const id = this.identity;
    // Two 32-bit words of a digest of the identity: a thread joins only under its owner's.
    const hex = identityDigest(id);
    const digest = [0, 8].map((at) => Number.parseInt(hex.slice(at, at + 8), 16) | 0);
    if (Atomics.load(this.cells, STARTED) === 1) {
      if (digest.some((word, i) => Atomics.load(this.cells, IDENTITY + i) !== word)) {
        throw invalidOptions(
          'sharedState belongs to a service of another identity (machine id, layout, epoch, type, ' +
            'genMethod or version): a thread joins the state only under the options of its owner',
        );
      }
      if (Atomics.load(this.cells, FENCE) === SharedFence.CLOSED) {
        throw new VestaError('SERVICE_CLOSED', 'the service that owns this shared state closed');
      }
      this.member = true;
      return;
    }
    this.hostLock = await acquireHostLock(
      `${this.options.hostLockScope}/${hostLockKey(id)}`,
      `machine id ${id.machine} (genMethod ${id.genMethod})`,
    );
    try {
      await this.waitForMarks();
    } catch (error) {
      await this.hostLock.release();
      this.hostLock = undefined;
      throw error;
    }
    Atomics.store(this.cells, FENCE, SharedFence.OPEN);
    digest.forEach((word, i) => Atomics.store(this.cells, IDENTITY + i, word));
    Atomics.store(this.cells, STARTED, 1);
    this.watchLeaseForMembers();
    if (this.identity.genMethod !== 0 && !this.store.durable && this.lease.release === undefined) {
      this.options.logger.warn(
        { machineId: id.machine },
        'a server on a fixed machine id without a state dir: a restart after the clock stepped back ' +
          'can repeat ids, and only a coordinator (e.g. ZooKeeper) can tell whether another host uses this id',
      );
    }
    this.codec.warnIfExpiring(this.options.logger, this.timer.clock());
  }

  /** Waits for the clock to pass every mark bounding this instance, else CLOCK_BEHIND_HIGH_WATER_MARK. */
  private async waitForMarks(): Promise<void> {
    let notBeforeMs = Math.max(this.store.read() ?? 0, this.lease.notBeforeMs ?? 0);
    for (const mark of processMarks(this.timer.clock, this.options.hostLockScope).values()) {
      if (checkStoredMark(mark, this.identity)) notBeforeMs = Math.max(notBeforeMs, mark.markMs);
    }
    // With a lead, issuing may start as far ahead of the clock as it may run later.
    const readyMs = notBeforeMs - (this.populator.maxLeadMs ?? 0);
    const gapMs = readyMs - this.timer.unixNow();
    if (gapMs > 0) {
      if (gapMs > this.options.maxStartupWaitMs) {
        throw new VestaError(
          'CLOCK_BEHIND_HIGH_WATER_MARK',
          `the clock is ${gapMs} ms behind the time already used (${new Date(notBeforeMs).toISOString()}); ` +
            `more than the ${this.options.maxStartupWaitMs} ms this service waits`,
          { details: { gapMs, markMs: notBeforeMs } },
        );
      }
      this.options.logger.warn({ gapMs }, 'clock is behind the time already used; waiting for it');
      const time = this.timer.time;
      const deadline = time.monotonic() + gapMs + this.options.maxStartupWaitMs;
      while (this.timer.clock() < readyMs) {
        if (time.monotonic() > deadline) {
          throw new VestaError(
            'CLOCK_BEHIND_HIGH_WATER_MARK',
            'the clock did not pass the high-water mark in time',
            { details: { markMs: notBeforeMs } },
          );
        }
        await sleepOn(time, Math.min(100, readyMs - this.timer.clock()));
      }
    }
    // Units below the mark may have been used: continue above them even if the clock steps back.
    const floor = this.timer.fromUnixMs(notBeforeMs);
    if (floor > 0) this.populator.resumeAfter(floor - 1);
  }

  genIdSync(): bigint {
    const out = this.claimOneSync();
    return this.compose(out.time, out.seq);
  }

  genId(): Promise<bigint> {
    // Without the populator's promise and await while the unit has room: they cost more than the id.
    if (this.populator.canClaimSync && !this.populator.waiting) {
      try {
        this.checkIssuable();
        const out = this.out;
        if (this.populator.tryClaim(1, out)) {
          this.checked(out);
          return Promise.resolve(this.compose(out.time, out.seq));
        }
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.genIdWaiting();
  }

  private async genIdWaiting(): Promise<bigint> {
    this.checkIssuable();
    const claim = this.checked(await this.populator.claim(1));
    return this.compose(claim.time, claim.seq);
  }

  /** A claim checked again and kept under the durable mark; synchronous, so a call awaits once. */
  private checked(claim: Claim): Claim {
    this.checkIssuable();
    if (claim.time >= this.mark.limitUnit) this.mark.ensure(claim.time);
    return claim;
  }

  private claimOneSync(): Claim {
    this.checkIssuable();
    this.populator.claimSync(1, this.out);
    return this.checked(this.out);
  }

  genIds(count: number): Promise<bigint[]> {
    return this.batch(count, (claim, ids, at) => this.composeRun(claim, ids, at));
  }

  genUuidSync(): string {
    this.checkUuids();
    const out = this.claimOneSync();
    return this.uuid(out.time, out.seq, out.atMs);
  }

  async genUuid(): Promise<string> {
    this.checkUuids();
    this.checkIssuable();
    const claim = this.checked(await this.populator.claim(1));
    return this.uuid(claim.time, claim.seq, claim.atMs);
  }

  genUuids(count: number): Promise<string[]> {
    return this.batch(
      count,
      (claim, uuids, at) => {
        for (let i = 0; i < claim.count; i++)
          uuids[at + i] = this.uuid(claim.time, claim.seq + i, claim.atMs);
      },
      true,
    );
  }

  private async batch<T>(
    count: number,
    fill: (claim: Claim, out: T[], at: number) => void,
    uuids = false,
  ): Promise<T[]> {
    checkBatchCount(count, this.options.maxBatch);
    if (uuids) this.checkUuids();
    this.checkIssuable();
    const out = new Array<T>(count);
    for (let filled = 0; filled < count;) {
      const claim = this.checked(await this.populator.claim(count - filled));
      fill(claim, out, filled);
      filled += claim.count;
    }
    return out;
  }

  private checkUuids(): void {
    if (this.uuidRefusal === undefined) return;
    throw invalidOptions(`this layout cannot issue UUIDs: ${this.uuidRefusal}`);
  }

  /** In a unit longer than 1 ms, a UUID's ms are its claim's, never before the unit's last UUID's. */
  private uuid(time: number, seq: number, atMs: number): string {
    const timer = this.timer;
    let ms = timer.toUnixMs(time);
    if (timer.unitMs > 1) {
      const within = Math.min(Math.max(atMs - ms, 0), timer.unitMs - 1);
      const floor = time === this.uuidUnit ? this.uuidMs : 0;
      this.uuidUnit = time;
      this.uuidMs = Math.max(within, floor);
      ms += this.uuidMs;
    }
    if (this.randomAt === this.random.length) {
      randomFillSync(this.random);
      this.randomAt = 0;
    }
    const random = this.random[this.randomAt++] ?? 0;
    return composeUuid7(ms, seq, this.lease.machineId, this.uuidFlags, random);
  }

  expId(id: bigint | string, form?: IdForm): Id {
    return this.codec.expId(id, form);
  }

  formatId(id: bigint, form?: IdForm): string {
    return formatId(id, form);
  }

  parseId(text: string | bigint, form?: IdForm): bigint {
    return parseId(text, form);
  }

  makeId(fields: MakeIdFields): bigint {
    return this.codec.makeId(fields, {
      machine: this.lease.machineId,
      genMethod: this.identity.genMethod,
      version: this.identity.version,
    });
  }

  transTime(time: number, type?: IdType): Date {
    return this.codec.transTime(time, type);
  }

  timeBounds(fromMs: number, toMs: number, only?: TimeBoundsFilter): TimeBounds {
    return this.codec.timeBounds(fromMs, toMs, { version: this.identity.version, ...only });
  }

  info(): IdServiceInfo {
    const { maxLeadMs, leadMs } = this.lead();
    return {
      ...this.codec.info(),
      machine: this.lease.machineId,
      genMethod: this.identity.genMethod,
      version: this.identity.version,
      populator: this.options.populator,
      maxBatch: this.options.maxBatch,
      ...(maxLeadMs > 0 ? { maxLeadMs, leadMs } : {}),
    };
  }

  /** The populator's lead (not the option's: a rebound populator has its own) and its use now. */
  private lead(): { maxLeadMs: number; aheadMs: number; leadMs: number } {
    const maxLeadMs = this.populator.maxLeadMs ?? 0;
    const aheadMs = this.timer.toUnixMs(this.populator.lastTime) - this.timer.clock();
    return { maxLeadMs, aheadMs, leadMs: Math.min(Math.max(aheadMs, 0), maxLeadMs) };
  }

  health(): IdServiceHealth {
    try {
      this.checkIssuable();
      this.timer.check(this.timer.now());
      const { maxLeadMs, aheadMs, leadMs } = this.lead();
      // Within the lead the last time used is ahead by borrowing: only the rest is a step back.
      const behindMs = aheadMs - maxLeadMs;
      if (behindMs > this.options.rollbackToleranceMs) {
        throw new VestaError(
          'CLOCK_MOVED_BACKWARDS',
          `the clock is ${behindMs} ms behind the last time used` +
            (maxLeadMs > 0 ? ` beyond the lead of ${maxLeadMs} ms` : ''),
        );
      }
      return maxLeadMs > 0 ? { ok: true, leadMs } : { ok: true };
    } catch (error) {
      if (VestaError.is(error)) return { ok: false, code: error.code, message: error.message };
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.member) {
      this.populator.close?.();
      return;
    }
    clearInterval(this.fenceWatch);
    Atomics.store(this.cells, FENCE, SharedFence.CLOSED);
    this.populator.close?.();
    try {
      // Holding the mark writer after the fence shut: a member raises the mark before this
      // reads it, or is refused (SERVICE_CLOSED), never in between.
      await this.mark.holdingWriter(() => {
        const atomic = this.populator.kind === 'atomic';
        const usedMs = this.timer.toUnixMs(this.populator.lastTime + 1);
        if (!atomic && this.mark.markMs > this.timer.epochMs)
          this.mark.lowerTo(this.populator.lastTime);
        // Atomic: a thread that joined may have claimed up to the mark just before the fence.
        recordProcessMark(this.timer.clock, this.options.hostLockScope, {
          source: 'a service closed earlier in this process',
          markMs: atomic ? Math.max(usedMs, this.mark.markMs) : usedMs,
          identity: this.identity,
        });
      });
    } finally {
      await this.hostLock?.release();
      await this.lease.release?.();
    }
  }

  /** Called before a claim and after it: a pause between the two (a GC) cannot outlive the fence. */
  private checkIssuable(): void {
    if (this.closed) throw new VestaError('SERVICE_CLOSED', 'the id service is closed');
    this.lease.assertValid?.();
    if (this.member && Atomics.load(this.cells, FENCE) !== SharedFence.OPEN) this.throwFenced();
  }

  /** Threads that joined this state hold no lease: a timer mirrors the owner's into the fence cell. */
  private watchLeaseForMembers(): void {
    if (this.populator.kind !== 'atomic' || this.lease.assertValid === undefined) return;
    const mirror = (): void => {
      let fence: number = SharedFence.OPEN;
      try {
        this.lease.assertValid?.();
      } catch {
        fence = SharedFence.LEASE_LOST;
      }
      Atomics.store(this.cells, FENCE, fence);
    };
    mirror();
    this.fenceWatch = setInterval(mirror, FENCE_WATCH_MS).unref();
  }

  private throwFenced(): never {
    if (Atomics.load(this.cells, FENCE) === SharedFence.CLOSED) {
      throw new VestaError(
        'SERVICE_CLOSED',
        'the service that owns this shared state closed and gave its machine id back',
      );
    }
    throw new VestaError(
      'MACHINE_ID_LEASE_LOST',
      "the owning service's machine-id lease cannot be confirmed; issuing is fenced",
    );
  }

  private compose(time: number, seq: number): bigint {
    const id =
      seq === this.lastSeq + 1 && time === this.lastTime
        ? this.last + this.seqStep
        : this.composeFields(time, seq);
    this.lastTime = time;
    this.lastSeq = seq;
    this.last = id;
    return id;
  }

  private composeRun({ time, seq, count }: Claim, ids: bigint[], from: number): void {
    let id = this.compose(time, seq);
    ids[from] = id;
    const step = this.seqStep;
    for (let i = 1; i < count; i++) {
      id += step;
      ids[from + i] = id;
    }
    this.lastSeq = seq + count - 1;
    this.last = id;
  }

  private composeFields(time: number, seq: number): bigint {
    if (time !== this.baseTime) {
      this.base = this.codec.encode({
        machine: this.lease.machineId,
        seq: 0,
        time,
        genMethod: this.identity.genMethod,
        type: this.layout.idType,
        version: this.identity.version,
      });
      this.baseTime = time;
    }
    return (
      this.base +
      (this.seqFits ? BigInt(seq * this.seqMultiplier) : BigInt(seq) << this.layout.seq.startBig)
    );
  }
}

// The marks of services closed in this process, so that a new one on the same machine id continues
// above them without a state dir: per clock (a mark bounds only services reading it) and host-lock
// scope, on `globalThis` so two copies of the package share them.
const REGISTRY = Symbol.for('vesta.processMarks');

function processMarks(clock: Clock, scope: string): Map<string, StoredMark> {
  const holder = globalThis as {
    [REGISTRY]?: WeakMap<Clock, Map<string, Map<string, StoredMark>>>;
  };
  const clocks = (holder[REGISTRY] ??= new WeakMap());
  const scopes = clocks.get(clock) ?? new Map<string, Map<string, StoredMark>>();
  const marks = scopes.get(scope) ?? new Map<string, StoredMark>();
  clocks.set(clock, scopes.set(scope, marks));
  return marks;
}

/** One entry per identity, the highest mark kept. */
function recordProcessMark(clock: Clock, scope: string, mark: StoredMark): void {
  const marks = processMarks(clock, scope);
  const key = JSON.stringify(mark.identity);
  const previous = marks.get(key);
  if (previous === undefined || previous.markMs < mark.markMs) marks.set(key, mark);
}
