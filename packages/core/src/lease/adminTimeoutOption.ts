import { wholeNumber } from '../options/optionTypes.js';

/**
 * The `timeoutMs` option of every coordinator's admin (the deadline of its connection and of
 * each request): a whole number of milliseconds from 1 to 600000.
 * @default 5000
 */
export const adminTimeoutOption = wholeNumber(1, 600_000).default(5_000);
