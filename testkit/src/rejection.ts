import type { VestaError } from '@vesta/core';
import { caughtAsync } from './caughtAsync.js';

/** For tests: the VestaError a promise rejects with; fails when it resolves or rejects otherwise. */
export function rejection(promise: Promise<unknown>): Promise<VestaError> {
  return caughtAsync(() => promise);
}
