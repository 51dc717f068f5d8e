import { expect } from 'vitest';
import { auditIds, type IdAudit } from './auditIds.js';
import type { IssuedBatch } from './startIdLoad.js';

/**
 * Asserts that no id in `batches` was issued twice and none below an id answered before it was
 * asked for; returns the audit for further checks (the total, ...).
 */
export function expectNoRepeatedIds(batches: readonly IssuedBatch[]): IdAudit {
  const audit = auditIds(batches);
  expect({ count: audit.duplicateCount, first: audit.duplicates }).toEqual({ count: 0, first: [] });
  expect({ count: audit.backwardCount, first: audit.backwards }).toEqual({ count: 0, first: [] });
  return audit;
}
