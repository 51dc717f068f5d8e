import { VestaError } from '../errors/VestaError.js';

/**
 * The one rule for a batch's size, shared by the service, the REST routes, the id server and
 * the client: `count` must be a whole number from 1 to `maxBatch`, else INVALID_ARGUMENT
 * (`details`: the count as given, as a string, and `maxBatch`).
 */
export function checkBatchCount(count: number, maxBatch: number): void {
  if (!Number.isInteger(count) || count < 1 || count > maxBatch) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `count must be a whole number from 1 to ${maxBatch}, got ${String(count)}`,
      { details: { count: String(count), maxBatch } },
    );
  }
}
