import type { LeaseEraStore } from '@vesta/lease';
import type { ClaimRead, ClaimReadResult, EtcdEra, EtcdNamespace } from './EtcdNamespace.js';

/** What an era's opening reads besides (see {@link etcdEraStore}), and who is told what it read. */
export interface EraOpeningRead {
  /** The read, asked when the opening is sent. */
  query(): ClaimRead;
  /** Told what it read when the opening left the era open (it is this era's). */
  read(result: ClaimReadResult): void;
}

/**
 * The era store of one acquisition over `store`: each era read answered by the request just made,
 * if it read the era key, instead of a request of its own. The acquisition's first read (`read`,
 * made to learn that etcd answers) serves its first claim round, and the era key as a create or
 * an open left it serves the read after it: a fleet entering a new era costs each start a read,
 * a create and an open, not five requests. An answer read earlier only starts an era wait earlier
 * than a read of its own would have, by less than a round trip (enterLeaseEra stamps its reads on
 * their answers), so the wait is never shorter. With `opening`, the transaction that opens the era
 * also reads what `opening` asks (a start's first claim round) and tells it when the era is open.
 */
export function etcdEraStore(
  store: EtcdNamespace,
  read: EtcdEra | undefined,
  opening?: EraOpeningRead,
): LeaseEraStore<EtcdEra> {
  let next: { readonly era: EtcdEra | undefined } | undefined = { era: read };
  return {
    readEra: () => {
      const answered = next;
      next = undefined;
      return answered === undefined ? store.readEra() : Promise.resolve(answered.era);
    },
    createEra: async (era) => {
      const { created, after } = await store.createEra(era);
      next = { era: after };
      return created;
    },
    openEra: async (found) => {
      const opened = await store.openEra(found, opening?.query());
      next = { era: opened.era };
      if (opened.era?.open === true && opened.also !== undefined) opening?.read(opened.also);
    },
  };
}
