import { GenMethod } from '@vesta/core';
import { serverRangeModeModule } from '@vesta/core/kit';

/** The central server mode's part of an id service (genMethod 1, the server range); load it after core's. */
export const serverModeModule = serverRangeModeModule(GenMethod.CENTRAL_SERVER);
