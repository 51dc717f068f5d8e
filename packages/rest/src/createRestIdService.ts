import { createIdService, GenMethod, type IdService, type IdServiceOptions } from '@vesta/core';
import { serverRangeModeModule } from '@vesta/core/kit';

/** The REST mode's part of an id service (genMethod 2, the layout's server range); load it after core's. */
export const restModeModule = serverRangeModeModule(GenMethod.REST);

/** Options of {@link createRestIdService}: the core's, less what the REST mode binds. */
export type RestIdServiceOptions = Omit<IdServiceOptions, 'genMethod' | 'machineIdRange'>;

/**
 * The id service of a REST server: genMethod 2, a machine id of the server range (else MACHINE_ID_OUT_OF_RANGE).
 * @example
 * const service = await createRestIdService({ machineId: 1000, stateDir: '/var/lib/vesta' });
 * app.use('/ids', createRestApp({ service }));
 */
export function createRestIdService(options: RestIdServiceOptions): Promise<IdService> {
  return createIdService(options, restModeModule);
}
