import { VestaError } from '../errors/VestaError.js';

/** Imports an optional package, or PACKAGE_MISSING; `needs` reads like `'--postgres needs'`. */
export async function importOptional<T>(
  name: string,
  load: () => Promise<T>,
  needs: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new VestaError(
      'PACKAGE_MISSING',
      `${needs} the package ${name}, which is not installed: npm install ${name}`,
      { cause: error, details: { package: name } },
    );
  }
}
