import type { LeaseJournalEntry } from './LeaseJournal.js';
import { leaseTenures, type LeaseTenure } from './leaseTenures.js';

/** A store's lease journal as {@link LeaseAdmin.history} reads it. */
export interface LeaseHistory {
  /** The entries kept (oldest first), filtered as asked. */
  readonly entries: readonly LeaseJournalEntry[];
  /** The tenures they show (see {@link leaseTenures}), filtered as asked. */
  readonly tenures: readonly LeaseTenure[];
  /**
   * The window the journal covers (Unix ms): from its oldest entry kept to the time of the read.
   * `fromMs` undefined: the journal is empty. Only times inside it can be judged: before it, the
   * entries were trimmed (retention) or lost with the store's data.
   */
  readonly covered: { readonly fromMs: number | undefined; readonly toMs: number };
}

/** What {@link historyOf} keeps: one machine id's, and tenures that reach `sinceMs`. */
export interface LeaseHistoryFilter {
  readonly machineId?: number;
  readonly sinceMs?: number;
}

/** The history of a store's journal `entries` read at `nowMs`, filtered by `filter`. */
export function historyOf(
  entries: readonly LeaseJournalEntry[],
  nowMs: number,
  filter: LeaseHistoryFilter = {},
): LeaseHistory {
  const { machineId, sinceMs } = filter;
  const fromMs = entries.reduce<number | undefined>(
    (min, e) => (min === undefined || e.atMs < min ? e.atMs : min),
    undefined,
  );
  const ofId = <T extends { machineId: number }>(x: T): boolean =>
    machineId === undefined || x.machineId === machineId;
  return {
    entries: entries.filter((e) => ofId(e) && (sinceMs === undefined || e.atMs >= sinceMs)),
    tenures: leaseTenures(entries, nowMs).filter(
      (t) => ofId(t) && (sinceMs === undefined || t.toMs >= sinceMs),
    ),
    covered: { fromMs, toMs: nowMs },
  };
}
