export { startIdServer } from './server/startIdServer.js';
export type { IdServerHandle } from './server/IdServerHandle.js';
export {
  DEFAULT_ID_SERVER_PORT,
  resolveIdServerOptions,
  type IdServerOptions,
  type ResolvedIdServerOptions,
} from './server/IdServerOptions.js';

export { createIdClient } from './client/createIdClient.js';
export { IdClient } from './client/IdClient.js';
export type { IdClientEvents } from './client/IdClientEvents.js';
export type { IdClientInfo, IdClientServerInfo } from './client/IdClientInfo.js';
export {
  resolveIdClientOptions,
  type IdClientFallbackOptions,
  type IdClientOptions,
  type ResolvedIdClientOptions,
} from './client/IdClientOptions.js';
export type { ClientMetrics } from './client/ClientMetrics.js';
export {
  ProtocolConnection,
  type ProtocolConnectionEvents,
  type ProtocolConnectionOptions,
} from './client/ProtocolConnection.js';

export { Op, RESPONSE_BIT } from './protocol/Op.js';
export {
  PROTOCOL_VERSION,
  HEADER_BYTES,
  MAX_REQUEST_FRAME_BYTES,
  MAX_TOKEN_BYTES,
} from './protocol/protocolConstants.js';
export { allocFrame, type Frame } from './protocol/Frame.js';
export { FrameDecoder } from './protocol/FrameDecoder.js';
export type { Welcome } from './protocol/WelcomeMessage.js';
export {
  parseServerAddress,
  formatServerAddress,
  type ServerAddress,
} from './protocol/parseServerAddress.js';
