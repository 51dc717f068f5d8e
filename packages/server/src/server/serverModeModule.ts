import { GenMethod } from '@vesta/core';
import { serverRangeModeModule } from '@vesta/core/kit';

/**
 * The central server mode's part of an id service: genMethod 1, and the server range of the bound layout
 * (924-1023 for Vesta's layouts, the top tenth of the machine field for the others), so a
 * layout rebound by a later module moves the range with it. Load it after core's module:
 * `createIdService(options, serverModeModule)`.
 */
export const serverModeModule = serverRangeModeModule(GenMethod.CENTRAL_SERVER);
