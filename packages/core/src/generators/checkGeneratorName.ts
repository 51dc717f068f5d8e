import { VestaError } from '../errors/VestaError.js';

/** The name of the instance's own generator. */
export const DEFAULT_GENERATOR = 'default';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Checks a generator name, safe in a URL path, a metric label and a log line (INVALID_ARGUMENT). */
export function checkGeneratorName(name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : String(name);
    throw new VestaError(
      'INVALID_ARGUMENT',
      `a generator name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit; got ${shown}`,
      { details: { field: 'name' } },
    );
  }
  return name;
}
