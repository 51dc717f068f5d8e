import type { HoldVerbs, LeaseClaimant, LeaseOpening, LeaseStartFrom } from '@vesta/lease';
import type { ResolvedEtcdMachineIdOptions } from '../EtcdMachineIdOptions.js';
import type { EtcdEra, EtcdNamespace, HeldLeases } from './EtcdNamespace.js';

/** A claim written: the record's new mod revision, and the etcd leases it was written under. */
export interface EtcdClaim {
  readonly revision: string;
  readonly leases: HeldLeases;
}

/**
 * A machine id held through etcd: a write requires the era and this holder's last write; the
 * keep-alive keeps the etcd leases of the live and recent keys (granting anew those gone). The
 * release also revokes the live etcd lease.
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
  return {
    keepAlive: async () => {
      const held = leases;
      leases = await store.keepLeases(held, o);
      return held?.live === leases.live && held.recent === leases.recent;
    },
    renew: async (token, holding, written) => {
      const era = eras.get(token);
      if (era === undefined || leases === undefined) return 'conflict';
      return (await id.renew(era, written, holding, leases, c.instance)) ?? 'conflict';
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
    retake: async (token, holding, version) => {
      const era = eras.get(token);
      if (era === undefined || leases === undefined) return 'conflict';
      const index = [store.indexOp(c.key, machineId)];
      const taken = await id.claim(era, version, false, holding, leases, c.instance, index);
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
