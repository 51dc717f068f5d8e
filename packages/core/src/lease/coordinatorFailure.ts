import { VestaError } from '../errors/VestaError.js';
import type { VestaErrorCode } from '../errors/errorCodes.js';

/**
 * An admin's failure as it reaches the operator: a VestaError as it is, anything else (a socket
 * or driver error) as `code` ("`store` request failed: ..."), the error kept as its cause.
 */
export function coordinatorFailure(
  error: unknown,
  store: string,
  code: VestaErrorCode = 'COORDINATOR_UNAVAILABLE',
): VestaError {
  if (VestaError.is(error)) return error;
  return new VestaError(code, `${store} request failed: ${String(error)}`, { cause: error });
}
