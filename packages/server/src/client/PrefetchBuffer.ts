import { VestaError, type TimeSource } from '@vesta/core';
import type { ClientMetrics } from './ClientMetrics.js';
import type { ResolvedIdClientPrefetchOptions } from './IdClientOptions.js';

/** The prefetch buffer of an {@link IdClient} (`prefetch` option), as `info().prefetch` reports it. */
export interface IdClientPrefetchInfo {
  readonly buffered: number;
  /** The size of the next refill, adapted to the callers' rate. */
  readonly batchSize: number;
  /** A refill starts when fewer ids than this remain. */
  readonly lowWater: number;
  readonly refills: number;
  readonly refilling: boolean;
  /** Ids dropped, never served, as older than `maxAgeMs`. */
  readonly droppedStale: number;
  readonly maxAgeMs: number;
}

interface Batch {
  readonly ids: readonly bigint[];
  next: number;
  /** When its refill was asked for (monotonic): its ids are younger. */
  readonly requestedAt: number;
}

interface Waiter {
  readonly resolve: (id: bigint) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Ids fetched ahead of use (uid-generator's ring buffer). One refill at most in flight, sized to
 * the recent demand for a quarter of `maxAgeMs` (1 to `maxBatch`); an id is served only while its
 * refill is at most `maxAgeMs` old, and once.
 */
export class PrefetchBuffer {
  readonly #fetch: (count: number) => Promise<bigint[]>;
  readonly #time: TimeSource;
  readonly #settings: ResolvedIdClientPrefetchOptions;
  readonly #ceiling: () => number;
  readonly #metrics: ClientMetrics;
  readonly #size = (): number => this.#available;
  readonly #batches: Batch[] = [];
  readonly #waiters: Waiter[] = [];
  #available = 0;
  #batchSize = 1;
  #lowWater = 0;
  #refilling = false;
  #demand = 0;
  #lastRefillAt = Number.NaN;
  #refills = 0;
  #droppedStale = 0;
  #closed = false;

  constructor(
    fetch: (count: number) => Promise<bigint[]>,
    settings: ResolvedIdClientPrefetchOptions,
    time: TimeSource,
    ceiling: () => number,
    metrics: ClientMetrics,
  ) {
    this.#fetch = fetch;
    this.#settings = settings;
    this.#time = time;
    this.#ceiling = ceiling;
    this.#metrics = metrics;
    metrics.prefetchBuffered.add(this.#size);
  }

  info(): IdClientPrefetchInfo {
    return {
      buffered: this.#available,
      batchSize: this.#batchSize,
      lowWater: this.#lowWater,
      refills: this.#refills,
      refilling: this.#refilling,
      droppedStale: this.#droppedStale,
      maxAgeMs: this.#settings.maxAgeMs,
    };
  }

  next(): Promise<bigint> {
    if (this.#closed) return Promise.reject(closedError());
    const id = this.take();
    if (id !== undefined) return Promise.resolve(id);
    this.#demand++;
    return new Promise<bigint>((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
      this.#refill();
    });
  }

  take(): bigint | undefined {
    if (this.#available === 0) return undefined;
    this.#dropStale();
    const batch = this.#batches[0];
    if (batch === undefined) return undefined;
    const id = batch.ids[batch.next++] as bigint;
    if (batch.next === batch.ids.length) this.#batches.shift();
    this.#available--;
    this.#demand++;
    if (this.#available < this.#lowWater) this.#refill();
    return id;
  }

  /** `count` buffered ids when they are strictly increasing (batches of servers interleave), else none. */
  takeRun(count: number): bigint[] | undefined {
    if (this.#available < count) return undefined;
    this.#dropStale();
    if (this.#available < count) return undefined;
    let need = count;
    let previous: bigint | undefined;
    for (const b of this.#batches) {
      if (previous !== undefined && (b.ids[b.next] as bigint) <= previous) return undefined;
      const n = Math.min(need, b.ids.length - b.next);
      previous = b.ids[b.next + n - 1];
      need -= n;
      if (need === 0) break;
    }
    const run: bigint[] = [];
    need = count;
    while (need > 0) {
      const b = this.#batches[0] as Batch;
      const n = Math.min(need, b.ids.length - b.next);
      for (let i = 0; i < n; i++) run.push(b.ids[b.next + i] as bigint);
      b.next += n;
      need -= n;
      if (b.next === b.ids.length) this.#batches.shift();
    }
    this.#available -= count;
    this.#demand += count;
    if (this.#available < this.#lowWater) this.#refill();
    return run;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#metrics.prefetchBuffered.delete(this.#size);
    this.#batches.length = 0;
    this.#available = 0;
    const error = closedError();
    for (const w of this.#waiters.splice(0)) w.reject(error);
  }

  #dropStale(): void {
    const oldest = this.#time.monotonic() - this.#settings.maxAgeMs;
    for (;;) {
      const b = this.#batches[0];
      if (b === undefined || b.requestedAt >= oldest) return;
      this.#batches.shift();
      const dropped = b.ids.length - b.next;
      this.#available -= dropped;
      this.#droppedStale += dropped;
      this.#metrics.prefetchStaleIds.inc(dropped);
    }
  }

  #refill(): void {
    if (this.#refilling || this.#closed) return;
    const now = this.#time.monotonic();
    const s = this.#settings;
    const ceiling = Math.min(s.maxBatch, this.#ceiling());
    if (!Number.isNaN(this.#lastRefillAt)) {
      const perMs = this.#demand / Math.max(1, now - this.#lastRefillAt);
      this.#batchSize = Math.max(1, Math.min(ceiling, Math.round((perMs * s.maxAgeMs) / 4)));
    }
    this.#lastRefillAt = now;
    this.#demand = 0;
    this.#lowWater = Math.floor(this.#batchSize * s.lowWaterRatio);
    const count = Math.min(ceiling, Math.max(this.#batchSize, this.#waiters.length));
    this.#refilling = true;
    this.#refills++;
    this.#metrics.prefetchRefills.inc();
    this.#fetch(count).then(
      (ids) => this.#landed(ids, now),
      (error: unknown) => this.#failed(error),
    );
  }

  #landed(ids: readonly bigint[], requestedAt: number): void {
    this.#refilling = false;
    if (this.#closed) return;
    let next = 0;
    while (next < ids.length && this.#waiters.length > 0) {
      (this.#waiters.shift() as Waiter).resolve(ids[next++] as bigint);
    }
    if (next < ids.length) {
      this.#batches.push({ ids, next, requestedAt });
      this.#available += ids.length - next;
      this.#dropStale();
    }
    if (this.#waiters.length > 0 || this.#available < this.#lowWater) this.#refill();
  }

  #failed(error: unknown): void {
    this.#refilling = false;
    for (const w of this.#waiters.splice(0)) w.reject(error);
  }
}

function closedError(): VestaError {
  return new VestaError('SERVICE_CLOSED', 'the id client is closed');
}
