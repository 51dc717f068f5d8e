import type { LeaseEraStore } from '@vesta/lease';
import type { EtcdEra, EtcdStore } from './EtcdStore.js';

/**
 * The era store of one acquisition: `store`, whose next era read is answered by `read`, the era
 * the acquisition just read (to know etcd answers): the first claim round enters the era without
 * a second request. Later reads ask etcd. An answer read earlier only starts an era wait earlier
 * than it would have, by less than the round trip that read it (enterLeaseEra stamps its reads on
 * their answers).
 */
export function eraReadOnce(store: EtcdStore, read: EtcdEra | undefined): LeaseEraStore<EtcdEra> {
  let first = true;
  return {
    readEra: () => {
      if (!first) return store.readEra();
      first = false;
      return Promise.resolve(read);
    },
    createEra: (era) => store.createEra(era),
    openEra: (found) => store.openEra(found),
  };
}
