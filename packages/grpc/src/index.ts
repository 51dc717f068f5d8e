// The `.proto` files ship in the package's `proto/` directory (`VESTA_PROTO_DIR`).
export { startGrpcServer, type GrpcServerHandle } from './startGrpcServer.js';
export {
  DEFAULT_GRPC_PORT,
  grpcServerOptions,
  type GrpcServerOptions,
} from './GrpcServerOptions.js';
export { grpcStatusOf, ERROR_DOMAIN } from './vestaHandlers.js';
export { routeGrpcLogging } from './routeGrpcLogging.js';
export {
  HEALTH_PROTO_PATH,
  loadVestaProto,
  VESTA_PROTO_DIR,
  VESTA_SERVICE_NAME,
} from './vestaProto.js';
