import { VestaError } from '@vesta/core';

/** For tests: the VestaError `fn` throws or rejects with; fails the test when it settles fine. */
export async function caughtAsync(fn: () => unknown): Promise<VestaError> {
  try {
    await fn();
  } catch (error) {
    if (VestaError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a VestaError');
}
