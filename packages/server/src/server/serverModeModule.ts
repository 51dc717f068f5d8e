import { GenMethod } from '@vesta/core';
import { serverRangeModeModule } from '@vesta/core/kit';

/**
 * The central server mode's part of an id service: genMethod 1 and the bound layout's server
 * range (924-1023 for Vesta's). Load it after core's: `createIdService(options, serverModeModule)`.
 */
export const serverModeModule = serverRangeModeModule(GenMethod.CENTRAL_SERVER);
