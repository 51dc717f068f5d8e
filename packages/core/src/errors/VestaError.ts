import type { VestaErrorCode } from './errorCodes.js';

export interface VestaErrorOptions {
  /** The underlying failure, when there is one. */
  cause?: unknown;
  /** Machine-readable facts about the failure (e.g. `{ behindMs: 1200 }`). */
  details?: Readonly<Record<string, unknown>> | undefined;
}

const BRAND: unique symbol = Symbol.for('vesta.VestaError');

/**
 * The one error type. Match on the stable `code` with {@link VestaError.is}, whose brand holds
 * across two installed copies of the package.
 * @example
 * try { ids.expId('abc'); } catch (e) { if (VestaError.is(e, 'INVALID_ARGUMENT')) ... }
 */
export class VestaError extends Error {
  override readonly name = 'VestaError';
  readonly [BRAND] = true;
  readonly code: VestaErrorCode;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: VestaErrorCode, message: string, options: VestaErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }

  /** Whether `error` is a VestaError (of any installed copy), and of the given code when one is named. */
  static is(error: unknown, code?: VestaErrorCode): error is VestaError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as { [BRAND]?: unknown })[BRAND] === true &&
      (code === undefined || (error as { code?: unknown }).code === code)
    );
  }

  /** `error` itself when it is a VestaError, else an INTERNAL_ERROR with it as its cause. */
  static from(error: unknown, message = 'an unexpected failure'): VestaError {
    if (VestaError.is(error)) return error;
    return new VestaError('INTERNAL_ERROR', `${message}: ${String(error)}`, { cause: error });
  }
}

/** INVALID_OPTIONS: a mistake in the options, found at construction. */
export const invalidOptions = (message: string, cause?: unknown): VestaError =>
  new VestaError('INVALID_OPTIONS', message, { cause });
