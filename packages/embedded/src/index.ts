export { createEmbeddedIdService } from './createEmbeddedIdService.js';
export { embeddedModeModule } from './embeddedModeModule.js';
export { attachEmbeddedIdService, type AttachOptions } from './attachEmbeddedIdService.js';
export type { AsyncEmbeddedIdService, EmbeddedIdService } from './EmbeddedIdService.js';
export {
  embeddedMachineIdRange,
  type EmbeddedIdServiceOptions,
} from './EmbeddedIdServiceOptions.js';
export type { WorkerIdServiceConfig } from './WorkerIdServiceConfig.js';
