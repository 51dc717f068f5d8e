import { VestaError } from '@vesta/core';

/** An OVERLOADED answer's retry-after hint, Infinity when it has none. */
function retryAfterOf(error: VestaError): number {
  const ms = error.details?.['retryAfterMs'];
  return typeof ms === 'number' ? ms : Infinity;
}

/** Of two OVERLOADED answers, the one that asks for the shorter wait. */
export function sooner(a: VestaError | undefined, b: VestaError): VestaError {
  return a === undefined || retryAfterOf(b) < retryAfterOf(a) ? b : a;
}

/** The error of a call every tried server answered OVERLOADED: the shortest wait any asked for. */
export function overloadedEverywhere(overloaded: VestaError, servers: number): VestaError {
  const retryAfterMs = overloaded.details?.['retryAfterMs'];
  return new VestaError(
    'OVERLOADED',
    `every id server tried is overloaded: ${overloaded.message}`,
    {
      cause: overloaded,
      details: { servers, ...(typeof retryAfterMs === 'number' ? { retryAfterMs } : {}) },
    },
  );
}
