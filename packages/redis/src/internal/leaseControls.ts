import { abandonLease } from '@vesta/core/kit';

/** What the specs may do to a lease that the public surface does not offer. */
export interface LeaseControls {
  /** Drops the lease as a crashed process would: renewals stop, no final mark, no release. */
  abandon(): void;
}

/** The controls of each lease, out of its public surface (the specs' hook). */
export const leaseControls = {
  get: (lease: object): LeaseControls => ({ abandon: () => abandonLease(lease) }),
};
