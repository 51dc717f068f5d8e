export { startIdServer, serverModeModule, type IdServerHandle } from './server/startIdServer.js';
export { DEFAULT_ID_SERVER_PORT } from './defaults.js';
export {
  resolveIdServerOptions,
  type IdServerOptions,
  type ResolvedIdServerOptions,
} from './server/IdServerOptions.js';

export {
  createIdClient,
  type IdClient,
  type IdClientEvents,
  type IdClientInfo,
  type IdClientServerInfo,
} from './client/IdClient.js';
export type { IdClientPrefetchInfo } from './client/PrefetchBuffer.js';
export {
  resolveIdClientOptions,
  type IdClientFallbackOptions,
  type IdClientOptions,
  type IdClientPrefetchOptions,
  type ResolvedIdClientOptions,
  type ResolvedIdClientPrefetchOptions,
} from './client/IdClientOptions.js';
export type { ClientMetrics } from './client/ClientMetrics.js';
