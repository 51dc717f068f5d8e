import { z } from 'zod';

// A mark read wrong would narrow a tenure (a false finding): such an entry is left out.
const time = z.int().min(0).max(8.64e15);
const entrySchema = z.object({
  event: z.enum(['claimed', 'released']),
  machineId: z.int().min(0).max(1023),
  /** The holder's key. */
  holder: z.string(),
  /** The holder's start's token. */
  instance: z.string(),
  /** When it took effect (Unix ms, the holder's clock). */
  atMs: time,
  /** `claimed`: the mark the id carried before (0: none). */
  floorMarkMs: time.exactOptional(),
  /** `released`: the final mark (nothing was issued at or past it). */
  markMs: time.exactOptional(),
});

/**
 * One entry of a store's lease journal (what `vesta audit --coordinator` judges ids against):
 * `claimed` before a lease is handed out, `released` on a clean release with the final mark.
 */
export type LeaseJournalEntry = Readonly<z.output<typeof entrySchema>>;

/** A store's journal, trimmed to its retention. */
export interface LeaseJournal {
  append(entry: LeaseJournalEntry): Promise<void>;
}

/** A journal whose append cannot trim in the same step (ZooKeeper, etcd): `count` after it. */
export interface JournalTrim<K> {
  readonly count: number;
  readonly retention: number;
  oldest(n: number): Promise<readonly K[]>;
  remove(batch: readonly K[]): Promise<void>;
}

/** Past `retention` plus a tenth, down to `retention`, a hundred a batch (etcd allows 128). */
export async function trimJournal<K>(t: JournalTrim<K>): Promise<void> {
  if (t.count <= t.retention + Math.floor(t.retention / 10)) return;
  const oldest = await t.oldest(t.count - t.retention);
  for (let at = 0; at < oldest.length; at += 100) await t.remove(oldest.slice(at, at + 100));
}

export function encodeJournalEntry(entry: LeaseJournalEntry): string {
  return JSON.stringify(entry);
}

/** An entry from its text form; undefined for anything this version cannot read. */
export function decodeJournalEntry(text: string): LeaseJournalEntry | undefined {
  try {
    const read = entrySchema.safeParse(JSON.parse(text));
    return read.success ? read.data : undefined;
  } catch {
    return undefined;
  }
}

type TenureEnd = 'released' | 'reclaimed' | 'held';

/** One holder's time on a machine id, from the journal. */
export interface LeaseTenure {
  readonly machineId: number;
  readonly holder: string;
  readonly instance: string;
  readonly fromMs: number;
  /** The most its previous holder issued at (0: none). */
  readonly floorMarkMs: number;
  /** Up to when the holder may have issued (exclusive). */
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
  const open = new Map<number, number>();
  const close = (machineId: number, toMs: number, ended: TenureEnd): void => {
    const at = open.get(machineId) ?? -1;
    const t = tenures[at];
    if (t !== undefined) tenures[at] = { ...t, toMs: Math.max(t.fromMs, toMs), ended };
    open.delete(machineId);
  };
  for (const e of entries) {
    const { machineId, holder, instance, atMs } = e;
    if (e.event === 'claimed') {
      close(machineId, e.floorMarkMs ?? atMs, 'reclaimed');
      open.set(machineId, tenures.length);
      const tenure = { machineId, holder, instance, fromMs: atMs, floorMarkMs: e.floorMarkMs ?? 0 };
      tenures.push({ ...tenure, toMs: nowMs, ended: 'held' });
    } else if (tenures[open.get(machineId) ?? -1]?.instance === instance) {
      close(machineId, e.markMs ?? atMs, 'released');
    }
  }
  return tenures;
}

/** A store's lease journal as `LeaseAdmin.history` reads it. */
export interface LeaseHistory {
  readonly entries: readonly LeaseJournalEntry[];
  readonly tenures: readonly LeaseTenure[];
  /** From the oldest entry kept to the read: before it, entries were trimmed or lost. */
  readonly covered: { readonly fromMs: number | undefined; readonly toMs: number };
}

export interface LeaseHistoryFilter {
  readonly machineId?: number;
  readonly sinceMs?: number;
}

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
