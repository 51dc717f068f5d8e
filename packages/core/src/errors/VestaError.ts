import type { VestaErrorCode } from './errorCodes.js';

/** Options of a {@link VestaError}. */
export interface VestaErrorOptions {
  /** The underlying failure, when there is one. */
  cause?: unknown;
  /** Machine-readable facts about the failure (e.g. `{ behindMs: 1200 }`). */
  details?: Readonly<Record<string, unknown>>;
}

/**
 * The one error type of the project. `code` is stable and documented in the README; match on
 * it, never on `message`.
 *
 * @example
 * try { ids.expId('abc'); } catch (e) { if (VestaError.is(e, 'INVALID_ARGUMENT')) ... }
 */
export class VestaError extends Error {
  override readonly name = 'VestaError';
  readonly code: VestaErrorCode;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: VestaErrorCode, message: string, options: VestaErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }

  /** Whether `error` is a VestaError, and of the given code when one is named. */
  static is(error: unknown, code?: VestaErrorCode): error is VestaError {
    return error instanceof VestaError && (code === undefined || error.code === code);
  }
}
