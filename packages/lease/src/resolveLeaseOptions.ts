import type { z } from 'zod';
import { VestaError } from '@vesta/core';
import type { Logger } from '@vesta/core';
import type { leaseOptionsShape } from './leaseOptionsShape.js';
import { systemClock, type Clock } from '@vesta/core';
import { type TimeSource } from '@vesta/core';
import { timeSourceWithClock } from '@vesta/core';

/** The shared lease options after validation (see `leaseOptionsShape`). */
export interface ResolvedLeaseOptions {
  readonly key: string | undefined;
  readonly stateDir: string | undefined;
  readonly fallbackToCache: boolean;
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
  readonly refreshIntervalMs: number;
  readonly fenceAfterMs: number;
  readonly reclaimAfterMs: number;
  readonly maxClockSkewMs: number;
  readonly maxClockWaitMs: number;
  /** How long a start waits for this key's previous holder (a crash) to go: fence + 1 s by default. */
  readonly ownerWaitMs: number;
  /** The wait on a store without an open era: fence + 2 × skew + 1 s by default. */
  readonly eraWaitMs: number;
  /** The wall clock of `time`. */
  readonly clock: Clock;
  readonly time: TimeSource;
  readonly logger: Logger;
}

/**
 * What a provider's own options change in the shared rules: the defaults that depend on how
 * long its store keeps a lost holder's claim, and further lower bounds of the reclaim delay.
 */
export interface LeaseOptionRules {
  /**
   * Further lower bounds of `reclaimAfterMs`, by the name of the option that sets each (a
   * session or live key must have expired before its id is reclaimed).
   * @default {}
   */
  readonly reclaimAtLeast?: Readonly<Record<string, number>>;
  /** `ownerWaitMs` when none is given. @default fenceAfterMs + 1000 */
  readonly ownerWaitMs?: number;
  /**
   * How long a holder cut off from the store may keep issuing; `eraWaitMs` defaults to this +
   * 2 × maxClockSkewMs + 1000.
   * @default fenceAfterMs
   */
  readonly holderOutlivesMs?: number;
}

/**
 * What `leaseOptionsShape` resolves to, before the rules between options; `fallbackToCache` may
 * be left out of a provider's declaration (one that never starts on a cached lease).
 */
export type LeaseShapeOutput = Readonly<
  Omit<z.output<z.ZodObject<typeof leaseOptionsShape>>, 'fallbackToCache'> & {
    fallbackToCache?: boolean;
  }
>;

function invalid(message: string): VestaError {
  return new VestaError('INVALID_OPTIONS', message);
}

/**
 * The rules between the shared lease options: `clock` or `time`, not both; the fence at least
 * twice the refresh interval; the reclaim delay at least twice the fence (and at least each of
 * `rules.reclaimAtLeast`); and the defaults that depend on other options. Throws INVALID_OPTIONS.
 */
export function resolveLeaseOptions(
  o: LeaseShapeOutput,
  rules: LeaseOptionRules = {},
): ResolvedLeaseOptions {
  if (o.time !== undefined && o.clock !== undefined) throw invalid('give clock or time, not both');
  const time = o.time ?? timeSourceWithClock(o.clock ?? systemClock);
  const { refreshIntervalMs, fenceAfterMs, reclaimAfterMs, maxClockSkewMs } = o;
  if (fenceAfterMs < 2 * refreshIntervalMs) {
    throw invalid(
      `fenceAfterMs (${fenceAfterMs}) must be at least twice refreshIntervalMs (${refreshIntervalMs})`,
    );
  }
  const floors = Object.entries(rules.reclaimAtLeast ?? {});
  if (reclaimAfterMs < 2 * fenceAfterMs || floors.some(([, floor]) => reclaimAfterMs < floor)) {
    const more = floors.map(([name, floor]) => ` and at least ${name} (${floor})`).join('');
    throw invalid(
      `reclaimAfterMs (${reclaimAfterMs}) must be at least twice fenceAfterMs (${fenceAfterMs})${more}`,
    );
  }
  const holderOutlivesMs = rules.holderOutlivesMs ?? fenceAfterMs;
  return {
    key: o.key,
    stateDir: o.stateDir,
    fallbackToCache: o.fallbackToCache ?? false,
    connectTimeoutMs: o.connectTimeoutMs,
    operationTimeoutMs: o.operationTimeoutMs,
    refreshIntervalMs,
    fenceAfterMs,
    reclaimAfterMs,
    maxClockSkewMs,
    maxClockWaitMs: o.maxClockWaitMs,
    ownerWaitMs: o.ownerWaitMs ?? rules.ownerWaitMs ?? fenceAfterMs + 1_000,
    eraWaitMs: o.eraWaitMs ?? holderOutlivesMs + 2 * maxClockSkewMs + 1_000,
    clock: time.now,
    time,
    logger: o.logger,
  };
}
