import { VestaError } from '@vesta/core';

/**
 * A store's failure as a coded error: `cause` itself when it is a VestaError (a key unknown, a
 * store closed), else COORDINATOR_UNAVAILABLE saying `what` failed, carrying the cause.
 */
export function storeUnavailable(
  what: string,
  cause: unknown,
  details?: Readonly<Record<string, unknown>>,
): VestaError {
  if (VestaError.is(cause)) return cause;
  return new VestaError(
    'COORDINATOR_UNAVAILABLE',
    `${what}: ${cause instanceof Error ? cause.message : String(cause)}`,
    details === undefined ? { cause } : { cause, details },
  );
}
