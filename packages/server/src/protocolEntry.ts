// `@vesta/server/protocol`: PROTOCOL.md's frames, for tools; applications use `createIdClient`.
export {
  Op,
  RESPONSE_BIT,
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
export {
  ProtocolConnection,
  type ProtocolConnectionEvents,
  type ProtocolConnectionOptions,
} from './client/ProtocolConnection.js';
