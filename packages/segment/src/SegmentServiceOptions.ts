import { defineOptions, objectWith, timeSourceOption, wholeNumber } from '@vesta/core/kit';
import type { SegmentServiceObserver } from '@vesta/core';
import { z } from 'zod';
import { MAX_SEGMENT_STEP } from './store/checkStep.js';
import type { SegmentStore } from './store/SegmentStore.js';

const SHARE = { error: 'must be a number from 0 to 1' };

/** The one declaration of {@link SegmentServiceOptions}. */
export const segmentServiceOptions = defineOptions('segment service', {
  /** Where segments are claimed (PostgresSegmentStore, RedisSegmentStore, MemorySegmentStore). */
  store: objectWith<SegmentStore>(
    'a SegmentStore: claim(), handBack(), createKey(), setStep(), keys(), close()',
    'claim',
    'handBack',
    'createKey',
    'setStep',
    'keys',
    'close',
  ),
  /** The next segment is fetched in the background once this share of the current one is used (Leaf's). @default 0.1 */
  refillAt: z.number(SHARE).min(0, SHARE).max(1, SHARE).default(0.1),
  /**
   * How long a segment should last (Leaf's dynamic step): faster doubles the next step, over
   * twice as long halves it, between the key's stored step and `maxStep`. @default 900000 (15 min)
   */
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
