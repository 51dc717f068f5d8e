import type { LeaseHistoryRows, TenureRow } from '../coordinators/Coordinator.js';

/** How an id's machine id stood at its time, by the coordinator's lease journal. */
export type LeaseVerdict = 'covered' | 'unleased' | 'notJudged';

/**
 * The tenures of a coordinator's lease journal, by machine id, to judge ids against (`vesta audit
 * --coordinator`): an id is covered when its time unit (its second, for ids of second
 * granularity) overlaps a tenure of its machine id; unleased when none does and the journal
 * knows who held the id then; not judged otherwise. A held tenure runs on with no end: its holder
 * may publish marks past the time of the read.
 *
 * The journal does not know who held an id before its first tenure kept: a holder whose `claimed`
 * entry was trimmed (retention), or who claimed before the store kept a journal, holds it with
 * no tenure. So an id is not judged when its time lies before the journal's window, or when it
 * may be such a holder's: at or before the floor mark of its machine id's first tenure kept
 * (the highest time that holder published), or of a machine id the store holds a record of
 * (`allocated`) but the journal no tenure. A machine id with neither was never held.
 */
export class LeaseCoverage {
  readonly #byId = new Map<number, TenureRow[]>();
  readonly #fromMs: number | undefined;
  readonly #allocated: ReadonlySet<number>;
  /** The journal's window, as the report shows it. */
  readonly covered: { readonly from: string | null; readonly to: string };

  /**
   * `history` the store's journal; `allocated` the machine ids the store holds a record of (its
   * admin's list), read before it.
   */
  constructor(history: LeaseHistoryRows, allocated: ReadonlySet<number> = new Set()) {
    const { fromMs, toMs } = history.covered;
    this.#fromMs = fromMs;
    this.#allocated = allocated;
    this.covered = {
      from: fromMs === undefined ? null : new Date(fromMs).toISOString(),
      to: new Date(toMs).toISOString(),
    };
    for (const t of history.tenures) {
      const list = this.#byId.get(t.machineId) ?? [];
      list.push(t);
      this.#byId.set(t.machineId, list);
    }
  }

  /** The verdict on an id of `machine` issued at `unixMs` (in units of `unitMs`). */
  judge(machine: number, unixMs: number, unitMs: number): LeaseVerdict {
    const endMs = unixMs + unitMs; // exclusive
    if (this.#fromMs === undefined || endMs <= this.#fromMs) return 'notJudged';
    const tenures = this.#byId.get(machine) ?? [];
    const held = tenures.some((t) => endMs > t.fromMs && (t.ended === 'held' || unixMs <= t.toMs));
    if (held) return 'covered';
    const first = tenures[0];
    if (first === undefined) return this.#allocated.has(machine) ? 'notJudged' : 'unleased';
    // Its previous holder, known to the journal or not, issued up to the claim's floor mark.
    return unixMs <= (first.floorMarkMs ?? 0) ? 'notJudged' : 'unleased';
  }
}
