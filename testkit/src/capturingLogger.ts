import type { Logger } from '@vesta/core';

/** A warning a {@link capturingLogger} kept. */
export interface CapturedWarning {
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** For tests: a logger that keeps its warnings for the test to read. */
export function capturingLogger(): Logger & { readonly warnings: CapturedWarning[] } {
  const warnings: CapturedWarning[] = [];
  return {
    warnings,
    info() {},
    error() {},
    warn: (fields, message) => void warnings.push({ fields, message }),
  };
}
