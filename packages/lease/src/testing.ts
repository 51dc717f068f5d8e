/*
 * `@vesta/lease/testing`: fault injection for tests of coordinator leases, off the public surface.
 */
export { abandonLease, leaseHold } from './CoordinatorLease.js';
export { renewalTurn } from './renewalTurn.js';
