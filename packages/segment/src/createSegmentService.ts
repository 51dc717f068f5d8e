import { systemTimeSource, VestaError, type SegmentServiceObserver } from '@vesta/core';
import {
  checkBatchCount,
  checkSegmentKey,
  defineOptions,
  objectWith,
  timeSourceOption,
  wholeNumber,
} from '@vesta/core/kit';
import { z } from 'zod';
import { SegmentBuffer } from './engine/SegmentBuffer.js';
import { MAX_SEGMENT_STEP, type SegmentStore } from './store/SegmentStore.js';

/** Dense, increasing numbers per business key (what {@link createSegmentService} returns). */
export interface SegmentService {
  /** The next number of `key`, above every one this service gave for it. */
  segment(key: string): Promise<bigint>;
  /** {@link segment}'s next number when `key`'s buffer holds one, without waiting; else undefined. */
  segmentSync(key: string): bigint | undefined;
  /** The next `n` numbers of `key`, increasing (1 to `maxBatch`). */
  segments(key: string, n: number): Promise<bigint[]>;
  /** Stops serving and hands unused numbers back to the store (which stays open: yours to close). */
  close(): Promise<void>;
}

const SHARE = { error: 'must be a number from 0 to 1' };
const STORE_METHODS = ['claim', 'handBack', 'createKey', 'setStep', 'keys', 'close'];

/** The one declaration of {@link SegmentServiceOptions}. */
export const segmentServiceOptions = defineOptions('segment service', {
  /** Where segments are claimed (PostgresSegmentStore, RedisSegmentStore, MemorySegmentStore). */
  store: objectWith<SegmentStore>(
    `a SegmentStore: ${STORE_METHODS.map((method) => `${method}()`).join(', ')}`,
    ...STORE_METHODS,
  ),
  /** The next segment is fetched in the background once this share of the current one is used (Leaf's). @default 0.1 */
  refillAt: z.number(SHARE).min(0, SHARE).max(1, SHARE).default(0.1),
  /** A segment's target life (Leaf's dynamic step): faster doubles the step, twice as long halves it. @default 900000 */
  targetSegmentMs: wholeNumber(1, 86_400_000).default(900_000),
  /** The largest dynamic step (Leaf's MAX_STEP); a larger stored step wins. @default 1000000 */
  maxStep: wholeNumber(1, MAX_SEGMENT_STEP).default(1_000_000),
  /** The wait after a failed background claim (a caller finding nothing buffered tries at once). @default 1000 */
  retryAfterMs: wholeNumber(0, 600_000).default(1000),
  /**
   * A caller's wait for a claim when nothing is buffered, then COORDINATOR_UNAVAILABLE; below the
   * id client's `requestTimeoutMs`, so a slow store is not taken for a dead server. @default 500
   */
  maxWaitMs: wholeNumber(1, 600_000).default(500),
  /** The largest `segments(key, n)`. @default 100000 */
  maxBatch: wholeNumber(1, 10_000_000).default(100_000),
  /** Where monotonic time comes from (tests advance a manual one). @default systemTimeSource */
  time: timeSourceOption.optional(),
  /** Metric hooks (`@vesta/metrics`' `segmentObserver`). @default none */
  observer: z
    .custom<SegmentServiceObserver>((v) => typeof v === 'object' && v !== null, {
      error: 'must be an object of hooks (onClaim, onServed, onKey)',
    })
    .default({}),
});

/** Options of {@link createSegmentService}, as callers give them: see {@link segmentServiceOptions} for each. */
export type SegmentServiceOptions = Readonly<z.input<typeof segmentServiceOptions.schema>>;

/** {@link SegmentServiceOptions} after validation: every default filled, frozen. */
export type ResolvedSegmentServiceOptions = Readonly<z.output<typeof segmentServiceOptions.schema>>;

/**
 * A segment service over a store: one buffer per key, made on its first call. INVALID_OPTIONS;
 * SEGMENT_KEY_UNKNOWN for a key the store does not have.
 * @example
 * const store = new PostgresSegmentStore({ url: 'postgres://vesta@db:5432/vesta' });
 * await store.createKey('order', { step: 1000 });
 * const numbers = createSegmentService({ store });
 * const n = await numbers.segment('order'); // 0n, then 1n, ...
 */
export function createSegmentService(options: SegmentServiceOptions): SegmentService {
  const o = segmentServiceOptions.resolve(options);
  const settings = { ...o, time: o.time ?? systemTimeSource };
  const buffers = new Map<string, SegmentBuffer>();
  let closing: Promise<void> | undefined;

  const checkOpen = (): void => {
    if (closing !== undefined)
      throw new VestaError('SERVICE_CLOSED', 'the segment service was closed');
  };
  const take = (key: string, n: number): Promise<bigint[]> => {
    checkOpen();
    let buffer = buffers.get(key);
    if (buffer === undefined) {
      // Keys that do not exist must not grow the service without bound (see SegmentBuffer.disposable).
      const created = new SegmentBuffer(checkSegmentKey(key), settings, () => {
        if (buffers.get(key) === created) buffers.delete(key);
      });
      buffers.set(key, (buffer = created));
    }
    return buffer.take(n);
  };

  return Object.freeze({
    async segment(key: string): Promise<bigint> {
      const [n] = await take(key, 1);
      return n as bigint;
    },
    segmentSync(key: string): bigint | undefined {
      checkOpen();
      return buffers.get(key)?.takeSync();
    },
    async segments(key: string, n: number): Promise<bigint[]> {
      checkBatchCount(n, o.maxBatch);
      return take(key, n);
    },
    close(): Promise<void> {
      closing ??= (async () => {
        const closed = await Promise.all(
          [...buffers.values()].map(async (b) => ({ key: b.key, ...(await b.close()) })),
        );
        const ranges = closed.flatMap(({ key, unconfirmed }) =>
          unconfirmed.map((r) => ({ key, start: String(r.start), end: String(r.end) })),
        );
        if (ranges.length === 0) return;
        // A hand-back that timed out may still reach the store: either way is safe, say why.
        const listed = ranges.map((r) => `[${r.start}, ${r.end}) of ${JSON.stringify(r.key)}`);
        const why = `the segment store did not confirm taking back ${listed.join(', ')}: this service serves none of them; the store may still take them back when the request reaches it (a later service then serves them, once), else they are skipped; never served twice`;
        const cause = closed.find((c) => c.cause !== undefined)?.cause;
        throw new VestaError('COORDINATOR_UNAVAILABLE', why, { cause, details: { ranges } });
      })();
      return closing;
    },
  });
}
