import type { HoldVerbs, LeaseClaimant, LeaseOpening, LeaseStartFrom } from '@vesta/lease';
import type { ResolvedEtcdMachineIdOptions } from '../EtcdMachineIdOptions.js';
import type { EtcdEra, EtcdNamespace, HeldLeases } from './EtcdNamespace.js';

/** A claim written: the record's new mod revision, and the etcd leases it was written under. */
export interface EtcdClaim {
  readonly revision: string;
  readonly leases: HeldLeases;
}

/**
 * A machine id held through etcd: each turn keeps its etcd leases alive and, once the mark last
 * published stands for half the fence or two turns or less, raises it in a transaction that
 * requires the era and this holder's last write. The release also revokes the live etcd lease.
 */
export function etcdHold(
  store: EtcdNamespace,
  o: ResolvedEtcdMachineIdOptions,
  c: LeaseClaimant,
  { machineId }: LeaseOpening,
  from: LeaseStartFrom<EtcdEra, EtcdClaim>,
): HoldVerbs<string> {
  const claimed = 'claimed' in from ? from.claimed : undefined;
  const id = store.ofId(machineId);
  let leases = claimed?.written.leases;
  // The era records seen, by token: a write compares the era key's whole value.
  const eras = new Map<string, EtcdEra>();
  if (claimed !== undefined) eras.set(claimed.era.era, claimed.era);
  /** The era `token` names and the leases to write under (kept only while the lease is open). */
  const under = async (token: string, turn: { readonly closed: boolean }) => {
    const era = eras.get(token);
    if (era === undefined) return undefined;
    const kept = await store.keepLeases(leases, o);
    if (turn.closed) return undefined;
    leases = kept;
    return { era, leases: kept };
  };
  return {
    // The keep-alive alone confirms the turn while the mark stands long enough: etcd keeps the
    // live key for the fence from when it was sent, and the next turn's write still leaves a
    // turn to retry it before the mark runs out.
    keep: async (turn) => {
      const keepsAbove = Math.max(o.fenceAfterMs / 2, 2 * o.refreshIntervalMs);
      if (leases === undefined || turn.markStandsMs <= keepsAbove) return undefined;
      turn.keep();
      const alive = await store.keepAliveAll([leases.live, leases.recent]);
      if (turn.closed) return 'missed';
      // An expired lease is granted anew by the write.
      return alive.every(Boolean) ? 'kept' : undefined;
    },
    renew: async (token, holding, written, turn) => {
      const u = await under(token, turn);
      if (u === undefined) return 'conflict';
      return (await id.renew(u.era, written, holding, u.leases, c.instance)) ?? 'conflict';
    },
    read: async () => {
      const read = await store.read({ era: true, ids: [machineId] });
      if (read.era !== undefined) eras.set(read.era.era, read.era);
      const row = read.rows[0];
      const data = row?.data;
      return {
        era: read.era,
        record: row &&
          data && {
            owner: data.owner,
            instance: data.instance ?? null,
            markMs: data.markMs,
            live: row.live,
            version: row.modRevision,
          },
      };
    },
    retake: async (token, holding, version, turn) => {
      const u = await under(token, turn);
      if (u === undefined) return 'conflict';
      const index = [store.indexOp(c.key, machineId)];
      const taken = await id.claim(u.era, version, false, holding, u.leases, c.instance, index);
      return taken?.revision ?? 'conflict';
    },
    release: async (token, holding, written) => {
      const era = eras.get(token);
      if (era === undefined) return false;
      const released = await id.release(era, written, holding);
      if (leases !== undefined) await store.revoke(leases.live).catch(() => undefined);
      return released;
    },
    close: () => store.close(),
    reconnect: () => store.reconnect(),
  };
}
