import { countDuplicates, type DuplicateReport } from './countDuplicates.js';

export interface MillionResult extends DuplicateReport {
  readonly ms: number;
}

/** Issues `count` ids from `next`, timing only the issuing, then runs the duplicate check. */
export function runMillion(next: () => bigint, count: number): MillionResult {
  const ids = new BigUint64Array(count);
  const t0 = performance.now();
  for (let i = 0; i < count; i++) ids[i] = next();
  const ms = performance.now() - t0;
  return { ...countDuplicates(ids), ms };
}
