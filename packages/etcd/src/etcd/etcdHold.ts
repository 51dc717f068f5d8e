import {
  holdingOf,
  rereadHeld,
  type HoldLoss,
  type HoldTurn,
  type LeaseClaimant,
  type LeaseHold,
} from '@vesta/lease';
import type { ResolvedEtcdMachineIdOptions } from '../EtcdMachineIdOptions.js';
import type { EtcdEra, EtcdNamespace, HeldLeases } from './EtcdNamespace.js';
import { keepLeases } from './keepLeases.js';

/** How a hold starts: what the provider claimed, or found in its cache. */
export interface EtcdHoldStart {
  readonly store: EtcdNamespace;
  readonly options: ResolvedEtcdMachineIdOptions;
  readonly claimant: LeaseClaimant;
  readonly machineId: number;
  /** The mark the id carried before this start: a cached id is taken back only at or below it. */
  readonly floorMarkMs: number;
  /** The era the id was claimed under; undefined when started from the cache. */
  readonly era: EtcdEra | undefined;
  /** The record's mod revision after the claim; undefined when started from the cache. */
  readonly written: string | undefined;
  /** The etcd leases the claim was written under; undefined when started from the cache. */
  readonly leases: HeldLeases | undefined;
}

/** The loss of a lease, for a reason a transaction cannot tell apart. */
const lost = (why: string): HoldLoss => ({ lost: 'other', why });

/**
 * A machine id held through etcd: each turn keeps its etcd leases alive, and once the mark last
 * published stands for half the fence or twice the refresh interval or less, whichever is longer
 * (every other turn with the defaults), raises the mark in a transaction that requires the era
 * and this holder's last write; after a start from the cache, takes the id back if nothing moved
 * meanwhile. The release publishes the final mark, deletes the live key and revokes the live etcd
 * lease. A turn whose lease closed meanwhile sends no further request and keeps its state.
 */
export function etcdHold(start: EtcdHoldStart): LeaseHold {
  const { store, options: o, claimant: c, machineId } = start;
  let { era: eraRecord, written, leases } = start;
  // A writing turn's mark and the etcd leases it writes under, kept alive or granted anew. The mark
  // is taken first: the fence then runs out no later than the live key's etcd lease. Undefined
  // when the lease closed meanwhile: its turn sends nothing more and keeps the leases it had (see
  // LeaseHold.close).
  const markAndKeep = async (
    turn: HoldTurn,
  ): Promise<{ readonly markMs: number; readonly under: HeldLeases } | undefined> => {
    const markMs = turn.mark();
    const kept = await keepLeases(store, leases, o);
    if (turn.closed) return undefined;
    leases = kept;
    return { markMs, under: kept };
  };
  return {
    renew: async (turn) => {
      if (written !== undefined) {
        const era = eraRecord;
        if (era === undefined) return 'missed';
        // While the mark stands long enough, the keep-alive alone confirms the turn: etcd keeps
        // the live key for at least the fence from when it was sent (its lease's TTL), and the
        // mark stands as published. The era and the record are checked at the writes between.
        // Long enough: more than half the fence, and more than two turns, so that the write of
        // the next turn still leaves a turn to retry it before the mark runs out (with a fence
        // just above two turns, half of it would leave the next write almost nothing).
        const keepsAbove = Math.max(o.fenceAfterMs / 2, 2 * o.refreshIntervalMs);
        if (leases !== undefined && turn.markStandsMs > keepsAbove) {
          turn.keep();
          const alive = await store.keepAliveAll([leases.live, leases.recent]);
          if (turn.closed) return 'missed';
          if (alive.every(Boolean)) return 'kept';
          // A lease expired: the write below keeps them alive again, after its mark, and grants
          // the expired one anew (a round trip more, for the order of mark and grant).
        }
        const marked = await markAndKeep(turn);
        if (marked === undefined) return 'missed';
        const revision = await store.renew(
          era,
          machineId,
          written,
          holdingOf(c, marked.markMs),
          marked.under,
          c.instance,
        );
        if (turn.closed) return 'missed';
        if (revision === undefined) {
          // A write of ours whose answer was lost may have moved the revision: read again.
          return rereadHeld(
            turn,
            c,
            async () => {
              const read = await store.read({ era: true, ids: [machineId] });
              const row = read.rows[0]?.data;
              return {
                eraStands: read.era?.era === era.era && read.era.open,
                record:
                  row === undefined || read.rows[0] === undefined
                    ? undefined
                    : {
                        owner: row.owner,
                        instance: row.instance ?? null,
                        version: read.rows[0].modRevision,
                      },
              };
            },
            (revision) => {
              written = revision;
            },
          );
        }
        written = revision;
        return 'confirmed';
      }
      const era = await store.readEra();
      if (turn.closed) return 'missed';
      if (era === undefined || !era.open || era.era !== turn.era) {
        return lost('etcd holds another allocation era than the cached lease (it lost its data)');
      }
      const [row] = (await store.read({ ids: [machineId] })).rows;
      if (turn.closed) return 'missed';
      if (
        row === undefined ||
        row.live ||
        row.data === undefined ||
        row.data.owner !== c.key ||
        row.data.markMs > start.floorMarkMs
      ) {
        return lost('the cached id was taken by another holder meanwhile');
      }
      const marked = await markAndKeep(turn);
      if (marked === undefined) return 'missed';
      const claimed = await store.claim(
        era,
        machineId,
        row.modRevision,
        false,
        holdingOf(c, marked.markMs),
        marked.under,
        c.instance,
        [store.indexOp(c.key, machineId)],
      );
      if (turn.closed) return 'missed';
      if (claimed === undefined) return lost('the cached id was taken by another holder meanwhile');
      eraRecord = era;
      written = claimed.revision;
      return { confirmedUnder: era.era };
    },
    release: async (markMs) => {
      const era = eraRecord;
      if (era === undefined || written === undefined) return false;
      const released = await store.release(
        era,
        machineId,
        written,
        holdingOf(c, markMs, c.stableKey),
      );
      // The live key is gone with the release; the live etcd lease would only expire later.
      if (leases !== undefined) await store.revoke(leases.live).catch(() => undefined);
      return released;
    },
    close: () => store.close(),
    // A client whose requests time out is started again.
    reconnect: () => store.reconnect(),
  };
}
