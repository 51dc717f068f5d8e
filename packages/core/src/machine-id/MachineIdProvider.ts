import type { MachineIdRange } from '../layout/machineRanges.js';

/** What a service asks a provider for. */
export interface MachineIdRequest {
  /** The range the mode allows (embedded 0-923, servers 924-1023 by default). */
  readonly range: MachineIdRange;
  readonly genMethod: number;
  readonly type: number;
}

/**
 * A machine id held for the life of a service. Providers that can lose an id (every coordinator's
 * lease) fence through `assertValid`; the service calls it before and after every claim, so that
 * a pause between the check and the claim cannot issue past the fence.
 */
export interface MachineIdLease {
  readonly machineId: number;
  /** Unix ms; nothing may be issued before it (e.g. a previous owner's time mark). */
  readonly notBeforeMs?: number;
  /** Throws a VestaError (e.g. MACHINE_ID_LEASE_LOST) while issuing is not safe. Must be cheap. */
  assertValid?(): void;
  /** Told the time high-water mark (Unix ms) whenever the service raises it. */
  onHighWaterMark?(markMs: number): void;
  /** Gives the id back (the service is closing). */
  release?(): Promise<void>;
}

/** Where machine ids come from: configuration, an IP list, this host's address, ZooKeeper... */
export interface MachineIdProvider {
  acquire(request: MachineIdRequest): Promise<MachineIdLease>;
}
