import type { MachineIdRange } from '@vesta/core';
import type { CachedLease } from './LeaseCache.js';

/** What the fallback rule needs to decide. */
export interface CachedLeaseFallbackInput {
  /** The option: start on the cached lease when the coordinator is unreachable. */
  readonly fallbackToCache: boolean;
  /** The state dir's cache (read only when the rule gets that far); undefined without a state dir. */
  readonly cache: { read(): CachedLease | undefined } | undefined;
  readonly key: string;
  readonly root: string;
  readonly range: MachineIdRange;
  /** The wall clock now (Unix ms). */
  readonly nowMs: number;
  /** One time unit of the requested id type (ms): the first id comes after the cached mark. */
  readonly unitMs: number;
  readonly reclaimAfterMs: number;
  readonly fenceAfterMs: number;
  readonly maxClockSkewMs: number;
  readonly maxClockWaitMs: number;
}

/** Start on the cached lease, refuse (and why), or refuse because the clock is too far behind. */
export type CachedLeaseFallback =
  | {
      readonly use: true;
      readonly cached: CachedLease;
      /** The lease is valid, unconfirmed, until the wall clock reaches this. */
      readonly validUntilMs: number;
      readonly notBeforeMs: number;
    }
  | { readonly use: false; readonly why: string }
  | {
      readonly use: false;
      readonly clockBehind: { readonly gapMs: number; readonly cached: CachedLease };
    };

/**
 * The cached-fallback rule: a start that cannot reach the coordinator may take the id of its last
 * confirmed lease only while nobody can have reclaimed it: a reclaim needs the mark to have aged
 * past `reclaimAfterMs` on the coordinator's clock, and the mark ran up to `fenceAfterMs` ahead of
 * the confirmation, give or take the clock skew. So the cache is good until
 * `confirmedAt + reclaimAfterMs − fenceAfterMs − maxClockSkewMs`. The first id comes one time unit
 * after the cached mark, waiting at most `maxClockWaitMs` for the clock to get there.
 */
export function cachedLeaseFallback(input: CachedLeaseFallbackInput): CachedLeaseFallback {
  const refuse = (why: string): CachedLeaseFallback => ({ use: false, why });
  if (!input.fallbackToCache) return refuse('fallbackToCache is off');
  if (input.cache === undefined) return refuse('no stateDir holds a cached lease');
  const cached = input.cache.read();
  if (cached === undefined || cached.key !== input.key || cached.root !== input.root)
    return refuse('the state dir holds no lease for this key');
  const { min, max } = input.range;
  if (cached.machineId < min || cached.machineId > max)
    return refuse(`the cached machine id ${cached.machineId} is outside ${min}-${max}`);
  const validUntilMs =
    cached.confirmedAtMs + input.reclaimAfterMs - input.fenceAfterMs - input.maxClockSkewMs;
  if (input.nowMs >= validUntilMs) {
    return refuse(
      `the cached lease (confirmed ${new Date(cached.confirmedAtMs).toISOString()}) is too old to be safe: the id may have been reclaimed`,
    );
  }
  const notBeforeMs = cached.markMs + input.unitMs;
  const gapMs = notBeforeMs - input.nowMs;
  if (gapMs > input.maxClockWaitMs) return { use: false, clockBehind: { gapMs, cached } };
  return { use: true, cached, validUntilMs, notBeforeMs };
}
