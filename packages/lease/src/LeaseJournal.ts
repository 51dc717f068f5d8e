/**
 * One entry of a store's lease journal, the history `vesta audit --coordinator` judges ids
 * against: `claimed` is appended once a claim's compare-and-set won and before its lease is
 * handed out (no id is issued without it), `released` on a clean release with the final mark.
 * Ids are never issued by a holder without a `claimed` entry before them.
 */
export interface LeaseJournalEntry {
  readonly event: 'claimed' | 'released';
  readonly machineId: number;
  /** The holder's key: the owner an admin's `list()` shows. */
  readonly holder: string;
  /** The start's instance token: tells two starts of one key apart. */
  readonly instance: string;
  /**
   * When the entry took effect (Unix ms, the holder's clock): the append's time, or for a start
   * on the state dir's cached lease (confirmed later) the time it started.
   */
  readonly atMs: number;
  /** `claimed`: the time mark the id carried before this claim (0: none). */
  readonly floorMarkMs?: number;
  /** `released`: the final mark published (nothing was issued at or past it). */
  readonly markMs?: number;
}

/** Appends entries to a store's journal, trimming it to its retention (see each store). */
export interface LeaseJournal {
  append(entry: LeaseJournalEntry): Promise<void>;
}

/** The journal's text form in a store (one JSON object per entry). */
export function encodeJournalEntry(entry: LeaseJournalEntry): string {
  return JSON.stringify(entry);
}

/** The latest time a Date holds (Unix ms): an entry past it is no entry this version wrote. */
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
  if (e['event'] !== 'claimed' && e['event'] !== 'released') return undefined;
  if (!isMachineId(e['machineId']) || !isTime(e['atMs'])) return undefined;
  if (typeof e['holder'] !== 'string' || typeof e['instance'] !== 'string') return undefined;
  const floor = e['floorMarkMs'];
  const mark = e['markMs'];
  // A mark read wrong would narrow a tenure (a false unleased finding): the whole entry is left
  // out instead, and its tenure runs on to the next claim.
  if ((floor !== undefined && !isTime(floor)) || (mark !== undefined && !isTime(mark))) {
    return undefined;
  }
  return {
    event: e['event'],
    machineId: e['machineId'],
    holder: e['holder'],
    instance: e['instance'],
    atMs: e['atMs'],
    ...(floor === undefined ? {} : { floorMarkMs: floor }),
    ...(mark === undefined ? {} : { markMs: mark }),
  };
}
