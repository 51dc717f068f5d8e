export { VestaModule } from './VestaModule.js';
export type { VestaModuleAsyncOptions, VestaModuleOptions } from './VestaModuleOptions.js';
export type { VestaIdService } from './VestaIdService.js';
export { VESTA_ID_SERVICE } from './tokens.js';
export { InjectVesta } from './InjectVesta.js';
export { VestaHealthIndicator, type VestaHealthIndicatorResult } from './VestaHealthIndicator.js';
