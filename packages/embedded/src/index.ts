export { createEmbeddedIdService } from './createEmbeddedIdService.js';
export { embeddedMachineIdRange, embeddedModeModule } from './embeddedModeModule.js';
export { attachEmbeddedIdService, type AttachOptions } from './attachEmbeddedIdService.js';
export type {
  AsyncEmbeddedIdService,
  EmbeddedIdService,
  EmbeddedIdServiceOptions,
  WorkerIdServiceConfig,
} from './EmbeddedIdService.js';
