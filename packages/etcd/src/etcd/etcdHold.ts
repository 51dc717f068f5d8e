import { storeHold, type LeaseClaimant, type LeaseHold } from '@vesta/lease';
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
  /** What the claim wrote: its era, the record's mod revision, its etcd leases; undefined from the cache. */
  readonly claimed:
    { readonly era: EtcdEra; readonly revision: string; readonly leases: HeldLeases } | undefined;
}

/**
 * A machine id held through etcd, over `storeHold`: each turn keeps its etcd leases alive, and
 * once the mark last published stands for half the fence or twice the refresh interval or less,
 * whichever is longer (every other turn with the defaults), raises the mark in a transaction that
 * requires the era (its value) and this holder's last write. The release publishes the final
 * mark, deletes the live key and revokes the live etcd lease.
 */
export function etcdHold(start: EtcdHoldStart): LeaseHold {
  const { store, options: o, claimant: c, machineId } = start;
  let leases = start.claimed?.leases;
  // The era records seen, by token: a write compares the era key's whole value.
  const eras = new Map<string, EtcdEra>();
  if (start.claimed !== undefined) eras.set(start.claimed.era.era, start.claimed.era);
  // The etcd leases to write under, kept alive or granted anew; kept only while the lease is open.
  const keep = async (turn: { readonly closed: boolean }): Promise<HeldLeases | undefined> => {
    const kept = await keepLeases(store, leases, o);
    if (turn.closed) return undefined;
    leases = kept;
    return kept;
  };
  return storeHold<string>(
    {
      // While the mark stands long enough, the keep-alive alone confirms the turn: etcd keeps the
      // live key for at least the fence from when it was sent (its lease's TTL), and the mark
      // stands as published. Long enough: more than half the fence, and more than two turns, so
      // that the next turn's write still leaves a turn to retry it before the mark runs out.
      keep: async (turn) => {
        const keepsAbove = Math.max(o.fenceAfterMs / 2, 2 * o.refreshIntervalMs);
        if (leases === undefined || turn.markStandsMs <= keepsAbove) return undefined;
        turn.keep();
        const alive = await store.keepAliveAll([leases.live, leases.recent]);
        if (turn.closed) return 'missed';
        // A lease expired: the write grants it anew, after its mark.
        return alive.every(Boolean) ? 'kept' : undefined;
      },
      renew: async (token, holding, written, turn) => {
        const era = eras.get(token);
        const under = era === undefined ? undefined : await keep(turn);
        if (era === undefined || under === undefined) return 'conflict';
        return (
          (await store.renew(era, machineId, written, holding, under, c.instance)) ?? 'conflict'
        );
      },
      read: async () => {
        const read = await store.read({ era: true, ids: [machineId] });
        if (read.era !== undefined) eras.set(read.era.era, read.era);
        const row = read.rows[0];
        const data = row?.data;
        return {
          era: read.era,
          record:
            row === undefined || data === undefined
              ? undefined
              : {
                  owner: data.owner,
                  instance: data.instance ?? null,
                  markMs: data.markMs,
                  live: row.live,
                  version: row.modRevision,
                },
        };
      },
      retake: async (token, holding, version, turn) => {
        const era = eras.get(token);
        const under = era === undefined ? undefined : await keep(turn);
        if (era === undefined || under === undefined) return 'conflict';
        const claimed = await store.claim(
          era,
          machineId,
          version,
          false,
          holding,
          under,
          c.instance,
          [store.indexOp(c.key, machineId)],
        );
        return claimed?.revision ?? 'conflict';
      },
      release: async (token, holding, written) => {
        const era = eras.get(token);
        if (era === undefined) return false;
        const released = await store.release(era, machineId, written, holding);
        // The live key is gone with the release; the live etcd lease would only expire later.
        if (leases !== undefined) await store.revoke(leases.live).catch(() => undefined);
        return released;
      },
      close: () => store.close(),
      // A client whose requests time out is started again.
      reconnect: () => store.reconnect(),
    },
    {
      claimant: c,
      floorMarkMs: start.floorMarkMs,
      claimed:
        start.claimed === undefined
          ? undefined
          : { era: start.claimed.era.era, version: start.claimed.revision },
    },
  );
}
