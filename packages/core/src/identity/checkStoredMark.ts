import { VestaError } from '../errors/VestaError.js';
import {
  describeIdentityChanges,
  fixedBitsDiffer,
  sameIdentity,
  sameTimeField,
  type IdIdentity,
} from './IdIdentity.js';

/** A time mark (Unix ms) kept by an earlier instance, with the identity it issued under. */
export interface StoredMark {
  /** Where it was kept, for messages (a file path, "this process"). */
  readonly source: string;
  readonly markMs: number;
  readonly identity: IdIdentity;
}

/**
 * Whether an earlier instance's mark bounds the times `ours` may use. True for the same
 * identity, and for the same time field with an epoch not earlier than ours (waiting past
 * the mark then makes every new time larger than any it used). False for another machine id
 * (another instance, not a restart of this one: marks guard an instance's own ids across
 * restarts, and two instances are kept apart by their machine ids, whatever their layouts) and
 * when no id of the two can meet (another genMethod, type or version at the same bits).
 * Anything else (the same machine id under a later epoch, another layout or unit) could issue
 * its ids again: STATE_MISMATCH, naming what changed and how to go on.
 */
export function checkStoredMark(stored: StoredMark, ours: IdIdentity): boolean {
  if (sameIdentity(stored.identity, ours)) return true;
  if (stored.identity.machine !== ours.machine) return false;
  if (fixedBitsDiffer(stored.identity, ours)) return false;
  if (sameTimeField(stored.identity, ours) && ours.epochMs <= stored.identity.epochMs) return true;
  const changes = describeIdentityChanges(stored.identity, ours);
  throw new VestaError(
    'STATE_MISMATCH',
    `${stored.source} was written under other id options (${changes.join('; ')}), under which ` +
      `ids up to ${new Date(stored.markMs).toISOString()} were issued; the new options could ` +
      'issue some of them again. Restart with the previous options or another machine id; remove ' +
      `${stored.source} only once no id issued under the old options can meet the new ones.`,
    { details: { source: stored.source, changes, markMs: stored.markMs } },
  );
}
