import { checkOption } from '../options/defineOptions.js';
import { wholeNumber } from '../options/optionTypes.js';

const timeoutOption = wholeNumber(1, 600_000).default(5_000);

/**
 * An admin's `timeoutMs` option (the deadline of its connection and of each request): a whole
 * number of milliseconds from 1 to 600000, 5000 when not given. Throws INVALID_OPTIONS.
 */
export function adminTimeoutMs(timeoutMs: unknown): number {
  return checkOption(timeoutOption, 'timeoutMs', timeoutMs);
}
