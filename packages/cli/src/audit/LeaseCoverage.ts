import type { MachineIdRange } from '@vesta/core';
import type { LeaseAllocation, LeaseHistory, LeaseTenure } from '@vesta/lease';

export type AllocationRecord = Pick<LeaseAllocation, 'machineId' | 'alive' | 'markMs'>;

/** A tenure as the audit reads it (a floor mark of 0 may be left out). */
export type TenureRow = Omit<LeaseTenure, 'floorMarkMs'> & { readonly floorMarkMs?: number };

type LeaseHistoryRows = { readonly tenures: readonly TenureRow[] } & Pick<LeaseHistory, 'covered'>;

/**
 * Judges ids against a lease journal (the README's `unleased` row): covered when the id's time unit
 * overlaps a tenure of its machine id, unleased when none does and the journal knows the holders then.
 */
export class LeaseCoverage {
  readonly #byId = new Map<number, TenureRow[]>();
  readonly #fromMs: number | undefined;
  readonly #records = new Map<number, AllocationRecord>();
  /** Undefined: every machine id counts as the coordinator's. */
  readonly #managed: readonly MachineIdRange[] | undefined;
  readonly covered: { readonly from: string | null; readonly to: string };

  /** `allocations`: the store's records, read after `history`; `ranges`: the layout's leasable ranges. */
  constructor(
    history: LeaseHistoryRows,
    allocations: readonly AllocationRecord[] = [],
    ranges?: readonly MachineIdRange[],
  ) {
    const { fromMs, toMs } = history.covered;
    this.#fromMs = fromMs;
    for (const a of allocations) this.#records.set(a.machineId, a);
    this.covered = {
      from: fromMs === undefined ? null : new Date(fromMs).toISOString(),
      to: new Date(toMs).toISOString(),
    };
    for (const t of history.tenures) {
      const list = this.#byId.get(t.machineId) ?? [];
      list.push(t);
      this.#byId.set(t.machineId, list);
    }
    const recorded = [...this.#byId.keys(), ...this.#records.keys()];
    this.#managed = ranges?.filter((r) => recorded.some((m) => m >= r.min && m <= r.max));
  }

  judge(machine: number, unixMs: number, unitMs: number) {
    const managed = this.#managed?.some((r) => machine >= r.min && machine <= r.max) ?? true;
    if (!managed) return 'notManaged';
    const endMs = unixMs + unitMs; // exclusive
    if (this.#fromMs === undefined || endMs <= this.#fromMs) return 'notJudged';
    const tenures = this.#byId.get(machine) ?? [];
    const held = tenures.some((t) => endMs > t.fromMs && (t.ended === 'held' || unixMs <= t.toMs));
    if (held) return 'covered';
    const first = tenures[0];
    if (first === undefined) {
      const record = this.#records.get(machine);
      if (record === undefined) return 'unleased';
      // A mark of 0 was not read: nothing is known of its holders.
      const known = !record.alive && record.markMs > 0 && unixMs > record.markMs;
      return known ? 'unleased' : 'notJudged';
    }
    // Its previous holder, known to the journal or not, issued up to the claim's floor mark.
    return unixMs <= (first.floorMarkMs ?? 0) ? 'notJudged' : 'unleased';
  }
}
