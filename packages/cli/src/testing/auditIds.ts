import type { IssuedBatch } from './startIdLoad.js';

/** What {@link auditIds} found. */
export interface IdAudit {
  /** Ids received in all. */
  readonly total: number;
  /** Receipts of an id already received. */
  readonly duplicateCount: number;
  /** The first ids received twice (at most 10). */
  readonly duplicates: readonly string[];
  /**
   * Answers holding an id not above every id of an answer received before that request was
   * sent: the ids went back in time.
   */
  readonly backwardCount: number;
  /** The first of them (at most 10), as `id <= earlier id`. */
  readonly backwards: readonly string[];
}

/**
 * Checks ids collected from one issuer (one machine id, across its restarts): none repeats,
 * and a request sent after an answer was read gets only higher ids than that answer's, since
 * the issuer composes ids in increasing order.
 */
export function auditIds(batches: readonly IssuedBatch[]): IdAudit {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  let total = 0;
  let duplicateCount = 0;
  for (const batch of batches) {
    for (const id of batch.ids) {
      total++;
      if (!seen.has(id)) seen.add(id);
      else {
        duplicateCount++;
        if (duplicates.size < 10) duplicates.add(id);
      }
    }
  }

  const backwards: string[] = [];
  let backwardCount = 0;
  const bySent = [...batches].sort((a, b) => a.sentAt - b.sentAt);
  const byReceived = [...batches].sort((a, b) => a.receivedAt - b.receivedAt);
  let highest = -1n;
  let highestText = '';
  let next = 0;
  for (const batch of bySent) {
    for (; next < byReceived.length; next++) {
      const earlier = byReceived[next] as IssuedBatch;
      if (earlier.receivedAt >= batch.sentAt) break;
      for (const id of earlier.ids) {
        const value = BigInt(id);
        if (value > highest) {
          highest = value;
          highestText = id;
        }
      }
    }
    for (const id of batch.ids) {
      if (BigInt(id) <= highest) {
        backwardCount++;
        if (backwards.length < 10) backwards.push(`${id} <= ${highestText}`);
      }
    }
  }
  return { total, duplicateCount, duplicates: [...duplicates], backwardCount, backwards };
}
