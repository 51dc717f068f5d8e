import { VestaError } from '@vesta/core';

/** For tests: the VestaError `fn` throws; fails the test when it returns or throws anything else. */
export function caught(fn: () => unknown): VestaError {
  try {
    fn();
  } catch (error) {
    if (VestaError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a VestaError');
}
