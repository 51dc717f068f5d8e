/**
 * One entry of a store's lease journal, the history `vesta audit --coordinator` judges ids
 * against: `claimed` once a claim won and before its lease is handed out (no id is issued without
 * it), `released` on a clean release with the final mark.
 */
export interface LeaseJournalEntry {
  readonly event: 'claimed' | 'released';
  readonly machineId: number;
  /** The holder's key. */
  readonly holder: string;
  /** The start's instance token. */
  readonly instance: string;
  /** When it took effect (Unix ms, the holder's clock); a cached start's claim: its start. */
  readonly atMs: number;
  /** `claimed`: the mark the id carried before (0: none). */
  readonly floorMarkMs?: number;
  /** `released`: the final mark (nothing was issued at or past it). */
  readonly markMs?: number;
}

/** Appends entries to a store's journal, trimming it to its retention. */
export interface LeaseJournal {
  append(entry: LeaseJournalEntry): Promise<void>;
}

/** What a store whose append cannot trim in the same step (ZooKeeper, etcd) offers {@link trimJournal}. */
export interface JournalTrim<K> {
  /** The entries counted after the append. */
  readonly count: number;
  readonly retention: number;
  /** The oldest `n` entries' handles, oldest first. */
  oldest(n: number): Promise<readonly K[]>;
  /** Removes up to a hundred entries. */
  remove(batch: readonly K[]): Promise<void>;
}

/**
 * Past `retention` plus a tenth, removes the oldest entries down to `retention`, a hundred a
 * batch (etcd's --max-txn-ops is 128 by default).
 */
export async function trimJournal<K>(t: JournalTrim<K>): Promise<void> {
  if (t.count <= t.retention + Math.floor(t.retention / 10)) return;
  const oldest = await t.oldest(t.count - t.retention);
  for (let at = 0; at < oldest.length; at += 100) await t.remove(oldest.slice(at, at + 100));
}

/** The journal's text form in a store (one JSON object per entry). */
export function encodeJournalEntry(entry: LeaseJournalEntry): string {
  return JSON.stringify(entry);
}

/** The latest time a Date holds (Unix ms). */
const MAX_DATE_MS = 8.64e15;

const isTime = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_DATE_MS;
const isMachineId = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 1023;

/** An entry from its text form; undefined for anything this version cannot read. */
export function decodeJournalEntry(text: string): LeaseJournalEntry | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const e = v as Record<string, unknown>;
  const { event, machineId, holder, instance, atMs, floorMarkMs, markMs } = e;
  if (event !== 'claimed' && event !== 'released') return undefined;
  if (!isMachineId(machineId) || !isTime(atMs)) return undefined;
  if (typeof holder !== 'string' || typeof instance !== 'string') return undefined;
  // A mark read wrong would narrow a tenure (a false finding): the entry is left out instead.
  if (
    (floorMarkMs !== undefined && !isTime(floorMarkMs)) ||
    (markMs !== undefined && !isTime(markMs))
  ) {
    return undefined;
  }
  return {
    event,
    machineId,
    holder,
    instance,
    atMs,
    ...(floorMarkMs === undefined ? {} : { floorMarkMs }),
    ...(markMs === undefined ? {} : { markMs }),
  };
}

/** How a tenure ended: released cleanly, closed by the next claim (reclaimed), or still held. */
export type TenureEnd = 'released' | 'reclaimed' | 'held';

/** One holder's time on a machine id, derived from the journal. */
export interface LeaseTenure {
  readonly machineId: number;
  readonly holder: string;
  readonly instance: string;
  /** The `claimed` entry's time (Unix ms). */
  readonly fromMs: number;
  /** The claim's floor mark (0: nobody held the id before): the most its previous holder issued at. */
  readonly floorMarkMs: number;
  /**
   * Up to when the holder may have issued (exclusive): its final mark, the next claim's floor
   * mark, or now while held.
   */
  readonly toMs: number;
  readonly ended: TenureEnd;
}

/**
 * The tenures a journal shows, oldest first: each `claimed` entry opens one, which runs to that
 * start's `released` entry, else to the next claim's floor mark, else to `nowMs`. Entries of a
 * start whose `claimed` entry was trimmed are ignored.
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
    const { machineId, holder, instance, atMs } = e;
    if (e.event === 'claimed') {
      close(machineId, e.floorMarkMs ?? atMs, 'reclaimed');
      open.set(machineId, tenures.length);
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
      const at = open.get(machineId);
      if (at !== undefined && tenures[at]?.instance === instance) {
        close(machineId, e.markMs ?? atMs, 'released');
      }
    }
  }
  return tenures;
}

/** A store's lease journal as `LeaseAdmin.history` reads it. */
export interface LeaseHistory {
  /** The entries kept (oldest first), filtered as asked. */
  readonly entries: readonly LeaseJournalEntry[];
  readonly tenures: readonly LeaseTenure[];
  /**
   * The window the journal covers (Unix ms), from its oldest entry kept (undefined: empty) to the
   * read: before it, entries were trimmed or lost with the store's data.
   */
  readonly covered: { readonly fromMs: number | undefined; readonly toMs: number };
}

/** What {@link historyOf} keeps: one machine id's, and tenures that reach `sinceMs`. */
export interface LeaseHistoryFilter {
  readonly machineId?: number;
  readonly sinceMs?: number;
}

/** The history of a journal's `entries` read at `nowMs`, filtered by `filter`. */
export function historyOf(
  entries: readonly LeaseJournalEntry[],
  nowMs: number,
  filter: LeaseHistoryFilter = {},
): LeaseHistory {
  const { machineId, sinceMs = Number.NEGATIVE_INFINITY } = filter;
  const oldest = entries.reduce((min, e) => Math.min(min, e.atMs), Number.POSITIVE_INFINITY);
  const fromMs = entries.length === 0 ? undefined : oldest;
  const ofId = (x: { machineId: number }): boolean =>
    machineId === undefined || x.machineId === machineId;
  return {
    entries: entries.filter((e) => ofId(e) && e.atMs >= sinceMs),
    tenures: leaseTenures(entries, nowMs).filter((t) => ofId(t) && t.toMs >= sinceMs),
    covered: { fromMs, toMs: nowMs },
  };
}
