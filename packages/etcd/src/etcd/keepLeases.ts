import { liveTtlMs, type EtcdNamespace, type HeldLeases } from './EtcdNamespace.js';

/**
 * The holder's etcd leases, kept alive, or granted anew where missing or expired: `live` (TTL of
 * the fence) and `recent` (TTL of the reclaim delay).
 */
export async function keepLeases(
  store: EtcdNamespace,
  held: Partial<HeldLeases> | undefined,
  o: { readonly fenceAfterMs: number; readonly reclaimAfterMs: number },
): Promise<HeldLeases> {
  const ids = [held?.live, held?.recent];
  const known = ids.filter((id): id is string => id !== undefined);
  // Both kept alive on one stream: a round trip, not one each.
  const alive = known.length === 0 ? [] : await store.keepAliveAll(known);
  const kept = (id: string | undefined): boolean =>
    id !== undefined && alive[known.indexOf(id)] === true;
  const [live, recent] = await Promise.all([
    kept(held?.live) ? (held?.live as string) : store.grant(liveTtlMs(o.fenceAfterMs)),
    kept(held?.recent) ? (held?.recent as string) : store.grant(o.reclaimAfterMs),
  ]);
  return { live, recent };
}
