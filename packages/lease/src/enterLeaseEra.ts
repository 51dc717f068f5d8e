import { randomUUID } from 'node:crypto';
import { type TimeSource } from '@vesta/core';
import { sleepOn } from '@vesta/core/kit';
import { EraWait } from './EraWait.js';

/** A coordinator's allocation era as a provider reads it (plus whatever its writes compare). */
export interface LeaseEraState {
  readonly era: string;
  readonly open: boolean;
}

/** The era record of a coordinator: read it, create it closed, open it. Each step is atomic. */
export interface LeaseEraStore<E extends LeaseEraState> {
  /** The era record, or undefined when there is none. */
  readEra(): Promise<E | undefined>;
  /** Creates a closed era `era` when there is none; false when another start created one first. */
  createEra(era: string): Promise<boolean>;
  /** Opens the closed era `found`, unless it changed since it was read. */
  openEra(found: E): Promise<void>;
}

/** What a provider is told while it enters the era (to log it). */
export interface LeaseEraHooks {
  /** This start created the era `era` (closed). */
  readonly onCreated?: (era: string) => void;
  /** This start is about to wait `waitMs` before it may open the closed era `era`; told once. */
  readonly onWait?: (era: string, waitMs: number) => void;
}

/**
 * Returns the coordinator's allocation era once it is open. A store without an era is new, or
 * lost its data (Redis flushed, table truncated, etcd restored...) while instances may still hold
 * ids of the lost data: the era is created closed, and nobody takes an id until `waitMs` has
 * passed on this start's monotonic clock since it first saw the era missing or closed (see
 * {@link EraWait}), by when every holder of the lost data has fenced itself; then whoever gets
 * there first opens it.
 */
export async function enterLeaseEra<E extends LeaseEraState>(
  store: LeaseEraStore<E>,
  waitMs: number,
  time: TimeSource,
  hooks: LeaseEraHooks = {},
): Promise<E> {
  const wait = new EraWait(time, waitMs);
  let told = false;
  for (;;) {
    const found = await store.readEra();
    // Stamped on the answer, not the request: the store may have lost its data (and a holder
    // made its last write) while the read was on its way.
    const seenAt = wait.seenAt();
    if (found === undefined) {
      wait.observe(undefined, seenAt);
      const era = randomUUID();
      if (await store.createEra(era)) hooks.onCreated?.(era);
      continue;
    }
    if (found.open) return found;
    const remainingMs = wait.observe(found.era, seenAt);
    if (remainingMs > 0) {
      if (!told) hooks.onWait?.(found.era, remainingMs);
      told = true;
      await sleepOn(time, remainingMs);
      continue;
    }
    await store.openEra(found);
  }
}
