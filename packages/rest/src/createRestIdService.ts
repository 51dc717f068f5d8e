import {
  createIdService,
  GenMethod,
  SERVER_MACHINE_ID_RANGE,
  type IdService,
  type IdServiceOptions,
} from '@vesta/core';

/** Options of {@link createRestIdService}: the core's, less what the REST mode fixes. */
export type RestIdServiceOptions = Omit<IdServiceOptions, 'genMethod' | 'machineIdRange'>;

/**
 * The id service of a REST server: genMethod 2, a machine id of the server range 924-1023
 * (any other is MACHINE_ID_OUT_OF_RANGE at start).
 *
 * @example
 * const service = await createRestIdService({ machineId: 1000, stateDir: '/var/lib/vesta' });
 * app.use('/ids', createRestApp({ service }));
 */
export function createRestIdService(options: RestIdServiceOptions): Promise<IdService> {
  return createIdService({
    ...options,
    genMethod: GenMethod.REST,
    machineIdRange: SERVER_MACHINE_ID_RANGE,
  });
}
