import { VestaError } from '@vesta/core';

/**
 * The one length check of a fixed-size payload: PROTOCOL_ERROR unless `payload` is `bytes` long,
 * `what` naming it (`decode payload`, `make answer`).
 */
export function checkPayloadBytes(payload: Buffer, bytes: number, what: string): void {
  if (payload.length !== bytes) {
    throw new VestaError('PROTOCOL_ERROR', `${what} must be ${bytes} bytes, got ${payload.length}`);
  }
}
