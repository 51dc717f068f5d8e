import type { LeaseHistoryRows, TenureRow } from '../coordinators/Coordinator.js';

/** How an id's machine id stood at its time, by the coordinator's lease journal. */
export type LeaseVerdict = 'covered' | 'unleased' | 'notJudged';

/**
 * The tenures of a coordinator's lease journal, by machine id, to judge ids against (`vesta audit
 * --coordinator`): an id is covered when its time unit (its second, for ids of second
 * granularity) overlaps a tenure of its machine id; unleased when none does; not judged when its
 * time lies before the journal's window (entries trimmed or lost with the store's data). A held
 * tenure runs on with no end: its holder may publish marks past the time of the read.
 */
export class LeaseCoverage {
  readonly #byId = new Map<number, TenureRow[]>();
  readonly #fromMs: number | undefined;
  /** The journal's window, as the report shows it. */
  readonly covered: { readonly from: string | null; readonly to: string };

  constructor(history: LeaseHistoryRows) {
    const { fromMs, toMs } = history.covered;
    this.#fromMs = fromMs;
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
    return held ? 'covered' : 'unleased';
  }
}
