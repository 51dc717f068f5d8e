import type { MachineIdRange } from '@vesta/core';
import type { LeaseAllocation, LeaseHistory, LeaseTenure } from '@vesta/lease';

/** What the store's allocation record of a machine id says (its admin's `list()`). */
export type AllocationRecord = Pick<LeaseAllocation, 'machineId' | 'alive' | 'markMs'>;

/** A tenure as the audit reads it (a floor mark of 0 may be left out). */
export type TenureRow = Omit<LeaseTenure, 'floorMarkMs'> & { readonly floorMarkMs?: number };

type LeaseHistoryRows = { readonly tenures: readonly TenureRow[] } & Pick<LeaseHistory, 'covered'>;

/**
 * How an id's machine id stood at its time, by the coordinator's lease journal; `notManaged`: not
 * judged either, its machine id lying in no range the coordinator leases from.
 */
export type LeaseVerdict = 'covered' | 'unleased' | 'notJudged' | 'notManaged';

/**
 * The tenures of a coordinator's lease journal, by machine id (`vesta audit --coordinator`): an
 * id is covered when its time unit overlaps a tenure of its machine id (a held one runs on),
 * unleased when none does and the journal knows who held the id then, not judged otherwise.
 *
 * The journal does not know a holder whose `claimed` entry was trimmed or predates it. So an id
 * is not judged before the journal's window, nor at or before the floor mark of its machine id's
 * first tenure kept, nor for a machine id the store records but the journal has no tenure of
 * (unless that record is free and the id lies past its mark). A range counts as the
 * coordinator's when the journal or the records hold a machine id of it; an id outside them
 * is `notManaged` (a fixed `--machine-id` beside leased servers).
 */
export class LeaseCoverage {
  readonly #byId = new Map<number, TenureRow[]>();
  readonly #fromMs: number | undefined;
  readonly #records = new Map<number, AllocationRecord>();
  /** The ranges the coordinator leases from; undefined: every machine id counts as its. */
  readonly #managed: readonly MachineIdRange[] | undefined;
  /** The journal's window, as the report shows it. */
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

  /** Whether `machine` lies in a range the coordinator leases from. */
  manages(machine: number): boolean {
    return this.#managed?.some((r) => machine >= r.min && machine <= r.max) ?? true;
  }

  /** The verdict on an id of `machine` issued at `unixMs` (in units of `unitMs`). */
  judge(machine: number, unixMs: number, unitMs: number): LeaseVerdict {
    if (!this.manages(machine)) return 'notManaged';
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
