import type { LeaseJournalEntry } from './LeaseJournal.js';

/** How a tenure ended: released cleanly, closed by the next claim (reclaimed), or still held. */
export type TenureEnd = 'released' | 'reclaimed' | 'held';

/** One holder's time on a machine id, derived from the journal (see {@link leaseTenures}). */
export interface LeaseTenure {
  readonly machineId: number;
  readonly holder: string;
  readonly instance: string;
  /** The `claimed` entry's time (Unix ms). */
  readonly fromMs: number;
  /**
   * The claim's floor mark (Unix ms; 0: the id had no mark, nobody held it before): the highest
   * time its previous holder may have issued at, known or not to the journal.
   */
  readonly floorMarkMs: number;
  /**
   * Up to when the holder may have issued (Unix ms, exclusive): its final mark, the next claim's
   * floor mark (the mark the holder last published), or now while held.
   */
  readonly toMs: number;
  readonly ended: TenureEnd;
}

/**
 * The tenures a journal shows (in its order, oldest first): each `claimed` entry opens one, which
 * runs to that start's `released` entry (its final mark), else to the next `claimed` entry of the
 * id (its floor mark: the previous holder never issued past the last mark it published), else up
 * to `nowMs` (held). Entries of a start whose `claimed` entry was trimmed are ignored.
 */
export function leaseTenures(entries: readonly LeaseJournalEntry[], nowMs: number): LeaseTenure[] {
  const tenures: LeaseTenure[] = [];
  // The open tenure of each id (its index in `tenures`).
  const open = new Map<number, number>();
  const close = (machineId: number, toMs: number, ended: TenureEnd): void => {
    const at = open.get(machineId);
    if (at === undefined) return;
    const t = tenures[at];
    if (t !== undefined) tenures[at] = { ...t, toMs: Math.max(t.fromMs, toMs), ended };
    open.delete(machineId);
  };
  for (const e of entries) {
    if (e.event === 'claimed') {
      close(e.machineId, e.floorMarkMs ?? e.atMs, 'reclaimed');
      open.set(e.machineId, tenures.length);
      const { machineId, holder, instance, atMs } = e;
      const floorMarkMs = e.floorMarkMs ?? 0;
      tenures.push({
        machineId,
        holder,
        instance,
        fromMs: atMs,
        floorMarkMs,
        toMs: nowMs,
        ended: 'held',
      });
    } else {
      const at = open.get(e.machineId);
      if (at === undefined || tenures[at]?.instance !== e.instance) continue;
      close(e.machineId, e.markMs ?? e.atMs, 'released');
    }
  }
  return tenures;
}
