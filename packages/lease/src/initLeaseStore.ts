import { randomUUID } from 'node:crypto';
import { VestaError } from '@vesta/core';

/**
 * What one attempt at declaring a store new did: `created` (the era now stands, open); `found`
 * (the store holds history: what it holds, as the store names it; a refusal names the first five,
 * so a store may stop looking after a few more); `raced` (the store changed between its read and
 * its atomic write: read again).
 */
export type LeaseStoreInitOutcome =
  { readonly created: true } | { readonly found: readonly string[] } | 'raced';

/** What {@link initLeaseStore} did: the era it created open, and where. */
export interface LeaseStoreInit {
  /** The token of the era created open. */
  readonly era: string;
  /** The store and where in it, e.g. `ZooKeeper under /vesta`. */
  readonly where: string;
}

/** How often a declaration reads again when the store changed under it. */
const INIT_ATTEMPTS = 5;

/** How many entries of what a store holds a refusal names. */
const SHOWN = 5;

/**
 * The operators' declaration that a coordinator store is new (`vesta machine-ids init`), the
 * rule every coordinator's admin follows: the allocation era is created OPEN, so the first start
 * takes an id at once instead of waiting out `eraWaitMs`, and only when the store holds no history
 * at all (no era, no allocation, no key mapping, no live holder). The admin gives `attempt`, one
 * atomic step of its store that creates the era `era` open if and only if nothing is there.
 *
 * Why this is safe only on a store known to be new: a store without history cannot have holders
 * of lost data, but a store that lost its data looks just as empty, and its old holders may still
 * issue ids until their fence. The era wait exists for that case; declaring such a store new
 * skips it. So this is an operator's explicit act, never something a start does on its own.
 *
 * Errors: COORDINATOR_NOT_NEW (the store holds history, named in the message, or kept changing).
 */
export async function initLeaseStore(
  where: string,
  attempt: (era: string) => Promise<LeaseStoreInitOutcome>,
): Promise<LeaseStoreInit> {
  for (let i = 0; i < INIT_ATTEMPTS; i++) {
    const era = randomUUID();
    const outcome = await attempt(era);
    if (outcome === 'raced') continue;
    if ('created' in outcome) return { era, where };
    const { found } = outcome;
    const named = found.slice(0, SHOWN).join(', ') + (found.length > SHOWN ? ' and more' : '');
    throw new VestaError(
      'COORDINATOR_NOT_NEW',
      `${where} is not new, refusing to declare it new: it holds ${named}`,
      { details: { where, found: [...outcome.found] } },
    );
  }
  throw new VestaError(
    'COORDINATOR_NOT_NEW',
    `${where} changed while being declared new (something else writes there); refusing`,
    { details: { where } },
  );
}
