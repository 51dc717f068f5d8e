// `@vesta/server/protocol`: PROTOCOL.md's frames, for tools; applications use `createIdClient`.
export { Op, RESPONSE_BIT } from './Op.js';
export {
  PROTOCOL_VERSION,
  HEADER_BYTES,
  MAX_REQUEST_FRAME_BYTES,
  MAX_TOKEN_BYTES,
} from './protocolConstants.js';
export { allocFrame, type Frame } from './Frame.js';
export { FrameDecoder } from './FrameDecoder.js';
export type { Welcome } from './WelcomeMessage.js';
export {
  parseServerAddress,
  formatServerAddress,
  type ServerAddress,
} from './parseServerAddress.js';
export {
  ProtocolConnection,
  type ProtocolConnectionEvents,
  type ProtocolConnectionOptions,
} from '../client/ProtocolConnection.js';
