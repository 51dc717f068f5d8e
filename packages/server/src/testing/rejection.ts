import { VestaError } from '@vesta/core';

/** For tests: the VestaError a promise rejects with; fails when it resolves or rejects otherwise. */
export async function rejection(promise: Promise<unknown>): Promise<VestaError> {
  try {
    await promise;
  } catch (error) {
    if (VestaError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}
