export { createRestApp } from './createRestApp.js';
export {
  createRestIdService,
  restModeModule,
  type RestIdServiceOptions,
} from './createRestIdService.js';
export { DEFAULT_REST_MAX_BATCH, DEFAULT_REST_PORT } from './defaults.js';
export {
  DEFAULT_MAX_QUERY_LENGTH,
  resolveRestAppOptions,
  type ResolvedRestAppOptions,
  type RestAppOptions,
} from './RestAppOptions.js';
export {
  resolveRestServerOptions,
  type ResolvedRestServerOptions,
  type RestServerOptions,
} from './RestServerOptions.js';
export type { RestServer } from './RestServer.js';
export { startRestServer } from './startRestServer.js';
export { REST_ROUTES, type RestParam, type RestPath, type RestRoute } from './http/restRoutes.js';
export { startRestCluster } from './startRestCluster.js';
export type { RestCluster, RestClusterWorker } from './cluster/RestCluster.js';
export {
  resolveRestClusterOptions,
  type ResolvedRestClusterOptions,
  type RestClusterOptions,
  type RestClusterSegments,
  type RestClusterSegmentsContext,
} from './cluster/RestClusterOptions.js';
export { createRestMiddleware, type RestMiddleware } from './createRestMiddleware.js';
