import type { SyncIdService } from '@vesta/core';

/** How a burst asks for its ids. */
export type LeadBurstCall = 'genIdSync' | 'genIds' | 'genId, all at once';

export interface LeadBurstResult {
  /** Median ms to serve one burst, over the rounds. */
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** Times callers waited for the next unit (`onSequenceExhausted`), per burst. */
  readonly waitsPerBurst: number;
  /** Units borrowed ahead of the clock (`onTimeBorrowed`), per burst. */
  readonly borrowedPerBurst: number;
  /** The largest lead seen by `health()` right after a burst, ms. */
  readonly maxLeadMs: number;
  /** Whether `health().leadMs` was back at 0 before every next burst (checked, not assumed). */
  readonly leadBackToZero: boolean;
  /** Places where an id was not greater than the one before it, over every burst (must be 0). */
  readonly orderBreaks: number;
}

/** The counts a service's observer feeds; read them around each burst. */
export interface LeadCounts {
  waits: number;
  borrowed: number;
}

function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Serves `rounds` bursts of `burst` ids each from a service whose observer feeds `counts`, and
 * times each burst. Between bursts it waits (bounded) until the service reports no lead, so
 * that every burst starts with the clock caught up, as after a quiet spell.
 */
export async function measureLeadBurst(
  service: SyncIdService,
  counts: LeadCounts,
  call: LeadBurstCall,
  burst: number,
  rounds: number,
): Promise<LeadBurstResult> {
  const times: number[] = [];
  let waits = 0;
  let borrowed = 0;
  let maxLeadMs = 0;
  let leadBackToZero = true;
  let orderBreaks = 0;
  let last = 0n;
  const leadOf = (): number => {
    const health = service.health();
    return health.ok ? (health.leadMs ?? 0) : Number.NaN;
  };
  for (let round = 0; round < rounds; round++) {
    // Wait for the lead to drain (at most 1 s), then for a fresh unit.
    const deadline = performance.now() + 1000;
    while (leadOf() > 0 && performance.now() < deadline) await sleepMs(1);
    if (leadOf() !== 0) leadBackToZero = false;
    await sleepMs(2);
    const before = { ...counts };
    const started = performance.now();
    let ids: bigint[];
    if (call === 'genIdSync') {
      ids = new Array<bigint>(burst);
      for (let i = 0; i < burst; i++) ids[i] = service.genIdSync();
    } else if (call === 'genIds') {
      ids = await service.genIds(burst);
    } else {
      ids = await Promise.all(Array.from({ length: burst }, () => service.genId()));
    }
    times.push(performance.now() - started);
    maxLeadMs = Math.max(maxLeadMs, leadOf());
    waits += counts.waits - before.waits;
    borrowed += counts.borrowed - before.borrowed;
    for (const id of ids) {
      if (id <= last) orderBreaks++;
      last = id;
    }
  }
  const deadline = performance.now() + 1000;
  while (leadOf() > 0 && performance.now() < deadline) await sleepMs(1);
  if (leadOf() !== 0) leadBackToZero = false;
  const sorted = [...times].sort((a, b) => a - b);
  return {
    medianMs: sorted[Math.floor(sorted.length / 2)] ?? 0,
    minMs: sorted[0] ?? 0,
    maxMs: sorted.at(-1) ?? 0,
    waitsPerBurst: waits / rounds,
    borrowedPerBurst: borrowed / rounds,
    maxLeadMs,
    leadBackToZero,
    orderBreaks,
  };
}
