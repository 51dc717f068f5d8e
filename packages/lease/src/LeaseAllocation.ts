/**
 * One machine id's allocation as a coordinator's admin reports it (`list()`, `release()`); each
 * admin's row extends it with what its store adds (a session, a reclaim lease).
 */
export interface LeaseAllocation {
  readonly machineId: number;
  /** The owner's key; null when released. */
  readonly owner: string | null;
  /** Whether a live holder has it now. */
  readonly alive: boolean;
  /** The last published time mark (Unix ms); 0 when none could be read. */
  readonly markMs: number;
  /** Milliseconds since the owner last raised the mark (the coordinator's clock where it has one). */
  readonly ageMs: number;
  readonly host: string | undefined;
  readonly pid: number | undefined;
}
