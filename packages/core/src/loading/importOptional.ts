import { VestaError } from '../errors/VestaError.js';

/**
 * Imports an optional peer package (`pg`, `ioredis`, a coordinator's, `@vesta/grpc`...):
 * PACKAGE_MISSING, "`<needs>` the package `<name>`, which is not installed: npm install
 * `<name>`", when it is not installed; any other failure as it is. So a package loads without
 * its optional peers until one is used.
 *
 * @param needs who needs it, with the verb: `'--postgres needs'`, `'redis:// coordinators need'`
 */
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
