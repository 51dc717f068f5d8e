import { liveTtlMs, type EtcdStore, type HeldLeases } from './EtcdStore.js';

/**
 * The holder's etcd leases, kept alive, or granted anew where missing or expired: `live` (TTL of
 * the fence) and `recent` (TTL of the reclaim delay).
 */
export async function keepLeases(
  store: EtcdStore,
  held: Partial<HeldLeases> | undefined,
  o: { readonly fenceAfterMs: number; readonly reclaimAfterMs: number },
): Promise<HeldLeases> {
  const keep = async (id: string | undefined, ttlMs: number): Promise<string> =>
    id !== undefined && (await store.keepAlive(id)) ? id : store.grant(ttlMs);
  const [live, recent] = await Promise.all([
    keep(held?.live, liveTtlMs(o.fenceAfterMs)),
    keep(held?.recent, o.reclaimAfterMs),
  ]);
  return { live, recent };
}
