import { ERROR_CODES, type VestaErrorCode } from './errorCodes.js';

/**
 * The HTTP status of an error code: its row in {@link ERROR_CODES}, the one table every HTTP
 * answer (REST routes, raw socket answers, the id server's metrics side and request metrics)
 * reads.
 */
export function statusOf(code: VestaErrorCode): number {
  return ERROR_CODES[code].status;
}
