import { VestaError } from '@vesta/core';

/** For tests: the code of the VestaError `fn` throws or rejects with, undefined when it settles fine. */
export async function codeOfAsync(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (error) {
    if (VestaError.is(error)) return error.code;
    throw error;
  }
  return undefined;
}
