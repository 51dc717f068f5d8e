import { VestaError } from '@vesta/core';

/**
 * Imports an optional peer package (`pg`, `ioredis`): PACKAGE_MISSING, naming the install to run,
 * when it is not installed; so `@vesta/segment` loads without either.
 */
export async function importOptional<T>(
  name: string,
  load: () => Promise<T>,
  store: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new VestaError(
      'PACKAGE_MISSING',
      `${store} needs the package ${name}, which is not installed: npm install ${name}`,
      { cause: error, details: { package: name } },
    );
  }
}
