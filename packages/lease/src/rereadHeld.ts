import type { LeaseClaimant } from './LeaseStore.js';
import type { HoldRenewal, HoldTurn } from './LeaseHold.js';

/** What a store reads again of a held id after an ambiguous answer. */
export interface HeldRead<V> {
  /** Whether the era the lease holds its id under still stands (false: the store lost its data). */
  readonly eraStands: boolean;
  /** The id's record: who it names and its version; undefined when it is gone. */
  readonly record:
    | {
        readonly owner: string | null;
        readonly instance: string | null;
        readonly version: V;
      }
    | undefined;
}

/**
 * The one policy for an ambiguous answer to a holder's compare-and-set write (a compare that
 * failed, after a write of its own whose reply was lost and which landed all the same): read
 * again before giving anything up. The era gone is a loss (`era`); a record that still names
 * this start is ours: its version is adopted (`adopt`) and the turn missed, so the next turn writes
 * on it; anything else means the id moved. A turn whose lease closed meanwhile is missed and
 * adopts nothing.
 */
export async function rereadHeld<V>(
  turn: Pick<HoldTurn, 'closed'>,
  c: LeaseClaimant,
  read: () => Promise<HeldRead<V>>,
  adopt: (version: V) => void,
): Promise<HoldRenewal> {
  const { eraStands, record } = await read();
  if (turn.closed) return 'missed';
  if (!eraStands) return { lost: 'era' };
  if (record === undefined || record.owner !== c.key || record.instance !== c.instance) {
    return { lost: 'moved', owner: record?.owner ?? null };
  }
  adopt(record.version);
  return 'missed';
}
