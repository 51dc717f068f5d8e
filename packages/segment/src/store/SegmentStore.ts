import { VestaError } from '@vesta/core';
import { checkSegmentKey } from '@vesta/core/kit';

/** A range `[start, end)` of one key's numbers. */
export interface SegmentRange {
  readonly start: bigint;
  readonly end: bigint;
}

/** What a claim answers: the range and the key's stored step (the engine's smallest). */
export interface SegmentClaim extends SegmentRange {
  readonly keyStep: number;
  /** A range handed back by a clean close, not a fresh one off the key's max. */
  readonly handedBack: boolean;
}

/** One key as a store lists it. */
export interface SegmentKeyInfo {
  readonly key: string;
  /** The end of the last range claimed: the next fresh range starts here. */
  readonly max: bigint;
  readonly step: number;
}

/** What a new key is created with. */
export interface SegmentKeyOptions {
  /** The size of a fresh range, the smallest the engine asks for. */
  readonly step: number;
  /** The key's first number (0 to 2^63 - 2, with `start + step` at most 2^63 - 1). @default 0n */
  readonly start?: bigint;
}

/** What a claim asks for. */
export interface SegmentClaimRequest {
  /** The size of a fresh range. @default the key's stored step */
  readonly step?: number;
  /** Only a handed-back range starting at or above this is taken, so numbers keep increasing. @default 0n */
  readonly minStart?: bigint;
}

/**
 * Where segments come from: a few atomic round trips; the buffering and step rules live above it.
 * A key never created is SEGMENT_KEY_UNKNOWN; a store that does not answer COORDINATOR_UNAVAILABLE.
 */
export interface SegmentStore {
  /** The lowest handed-back range of `key` at or above `minStart` (removed), else `[max, max + step)`. */
  claim(key: string, request?: SegmentClaimRequest): Promise<SegmentClaim>;
  /** Gives back an unused range (a clean close), for the next claim to take first. */
  handBack(key: string, range: SegmentRange): Promise<void>;
  /** Creates `key`; false (nothing changed) when it exists. */
  createKey(key: string, options: SegmentKeyOptions): Promise<boolean>;
  /** Sets the stored step of `key` (SEGMENT_KEY_UNKNOWN when it does not exist). */
  setStep(key: string, step: number): Promise<void>;
  /** Every key, by name. */
  keys(): Promise<SegmentKeyInfo[]>;
  /** Lets go of the connection the store opened (never one the application gave). */
  close(): Promise<void>;
}

/** The largest step a store takes (PostgreSQL's `integer`). */
export const MAX_SEGMENT_STEP = 2_147_483_647;

/** The bound of a key's `max` (PostgreSQL's `bigint`, Redis's integers): the largest number served is 2^63 - 2. */
export const MAX_SEGMENT_NUMBER = 2n ** 63n - 1n;

export function checkStep(step: unknown): number {
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 1 || step > MAX_SEGMENT_STEP) {
    const why = `a segment step must be a whole number from 1 to ${MAX_SEGMENT_STEP}, got ${String(step)}`;
    throw new VestaError('INVALID_ARGUMENT', why);
  }
  return step;
}

/** Checks `createKey`'s input (INVALID_ARGUMENT); a key whose first range would pass 2^63 - 2 is refused. */
export function checkNewKey(key: string, options: SegmentKeyOptions) {
  checkSegmentKey(key);
  const step = checkStep(options.step);
  const start: unknown = options.start ?? 0n;
  if (typeof start !== 'bigint' || start < 0n || start >= MAX_SEGMENT_NUMBER) {
    const why = `a segment key's start must be a bigint from 0 to 2^63 - 2 (the largest number a key serves), got ${typeof start === 'bigint' ? `${start}n` : String(start)}`;
    throw new VestaError('INVALID_ARGUMENT', why, { details: { field: 'start' } });
  }
  if (start + BigInt(step) > MAX_SEGMENT_NUMBER) {
    const why = `segment key ${JSON.stringify(key)} created at ${start} with step ${step} could never serve: its first range would pass 2^63 - 2, the largest number a key serves (give a lower start or step)`;
    const details = { field: 'start', key, start: String(start), step };
    throw new VestaError('INVALID_ARGUMENT', why, { details });
  }
  return { step, start };
}

/** SEGMENT_KEY_UNKNOWN: a key never created. */
export function unknownSegmentKey(key: string): VestaError {
  const why = `no segment key ${JSON.stringify(key)}: create it first (store.createKey)`;
  return new VestaError('SEGMENT_KEY_UNKNOWN', why, { details: { key } });
}

/** SEGMENT_SEQUENCE_OVERFLOW: a claim would pass 2^63 - 2; the key has run out for good (it never wraps). */
export function segmentKeyRanOut(key: string): VestaError {
  const why = `segment key ${JSON.stringify(key)} has run out: its next range would pass 2^63 - 2, the largest number a key serves`;
  const details = { key, largest: String(MAX_SEGMENT_NUMBER - 1n) };
  return new VestaError('SEGMENT_SEQUENCE_OVERFLOW', why, { details });
}

/** `cause` when it is a VestaError, else COORDINATOR_UNAVAILABLE saying `what` failed. */
export function storeUnavailable(what: string, cause: unknown, details?: Record<string, unknown>) {
  if (VestaError.is(cause)) return cause;
  const message = `${what}: ${cause instanceof Error ? cause.message : String(cause)}`;
  return new VestaError('COORDINATOR_UNAVAILABLE', message, { cause, ...(details && { details }) });
}

/** The PostgreSQL and Redis stores' checks, connection opened on first use (again after a failure), errors. */
export abstract class ConnectedSegmentStore<C> implements SegmentStore {
  protected readonly where: string;
  #opened: Promise<C> | undefined;
  #closed = false;

  /** `kind.option`: the option of a connection of the application's own, `given` when there is one. */
  constructor(
    private readonly kind: Record<'name' | 'coordinator' | 'option' | 'given', string>,
    url: string | undefined,
    given: C | undefined,
  ) {
    if (url === undefined && given === undefined) {
      const why = `a ${kind.name} segment store needs url or ${kind.option}`;
      throw new VestaError('INVALID_OPTIONS', why, { details: { option: 'url' } });
    }
    this.where = url === undefined ? kind.given : new URL(url).host;
  }

  protected abstract open(): Promise<C>;
  /** Lets go of what `open` made (never a connection the application gave). */
  protected abstract release(opened: Promise<C> | undefined): Promise<void>;
  protected abstract claimRange(c: C, key: string, r: SegmentClaimRequest): Promise<SegmentClaim>;
  /** These two answer false for an unknown key. */
  protected abstract addFree(c: C, key: string, range: SegmentRange): Promise<boolean>;
  protected abstract putStep(c: C, key: string, step: number): Promise<boolean>;
  protected abstract addKey(c: C, key: string, start: bigint, step: number): Promise<boolean>;
  protected abstract listKeys(c: C): Promise<SegmentKeyInfo[]>;

  async claim(key: string, request: SegmentClaimRequest = {}): Promise<SegmentClaim> {
    checkSegmentKey(key);
    if (request.step !== undefined) checkStep(request.step);
    return this.run((c) => this.claimRange(c, key, request));
  }

  async handBack(key: string, range: SegmentRange): Promise<void> {
    checkSegmentKey(key);
    if (range.end <= range.start) return;
    if (!(await this.run((c) => this.addFree(c, key, range)))) throw unknownSegmentKey(key);
  }

  async createKey(key: string, options: SegmentKeyOptions): Promise<boolean> {
    const { step, start } = checkNewKey(key, options);
    return this.run((c) => this.addKey(c, key, start, step));
  }

  async setStep(key: string, step: number): Promise<void> {
    checkSegmentKey(key);
    checkStep(step);
    if (!(await this.run((c) => this.putStep(c, key, step)))) throw unknownSegmentKey(key);
  }

  async keys(): Promise<SegmentKeyInfo[]> {
    return this.run((c) => this.listKeys(c));
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.release(this.#opened);
  }

  protected async run<T>(request: (c: C) => Promise<T>): Promise<T> {
    try {
      if (this.#closed) throw new VestaError('SERVICE_CLOSED', 'the segment store was closed');
      const opening = (this.#opened ??= this.open());
      opening.catch(() => {
        if (this.#opened === opening) this.#opened = undefined;
      });
      return await request(await opening);
    } catch (error) {
      const details = { coordinator: this.kind.coordinator, host: this.where };
      throw storeUnavailable(`${this.kind.name} at ${this.where} failed`, error, details);
    }
  }
}
