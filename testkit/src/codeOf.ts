import { VestaError } from '@vesta/core';

/** For tests: the code of the VestaError `fn` throws, undefined when it returns; other errors rethrown. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (VestaError.is(error)) return error.code;
    throw error;
  }
  return undefined;
}
