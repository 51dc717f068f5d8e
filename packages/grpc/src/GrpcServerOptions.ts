import { systemTimeSource, type IdGenerators, type IdService } from '@vesta/core';
import {
  defineOptions,
  objectWith,
  serverOptionsShape,
  timeSourceOption,
  wholeNumber,
} from '@vesta/core/kit';
import type { VestaMetrics } from '@vesta/metrics';
import type { z } from 'zod';

/** The default port of the gRPC listener (`vesta server --grpc-port`): the TCP protocol's + 1. */
export const DEFAULT_GRPC_PORT = 7071;

/** `host`, `port`, `authToken`, `logger`: core's `serverOptionsShape` (documented there). */
const { host, port, authToken, logger } = serverOptionsShape(DEFAULT_GRPC_PORT);

/** The declaration of {@link GrpcServerOptions}: one schema, its defaults and documentation. */
export const grpcServerOptions = defineOptions('gRPC server', {
  /** The id service answering the calls: a central server's, a REST server's, an embedded one. */
  service: objectWith<IdService>('an IdService', 'genId', 'genIds', 'genUuids', 'info', 'health'),
  /** The named generators over `service` (GenId's and GenIds' `generator`). @default none: a name is UNKNOWN_GENERATOR */
  generators: objectWith<IdGenerators>('IdGenerators', 'get').optional(),
  host,
  port,
  /** A token every call must carry as `authorization: Bearer <token>` metadata (grpc.health.v1 needs none). @default none */
  authToken,
  /** The largest `count` of one GenIds or GenUuids stream. @default 10000000 */
  maxStreamCount: wholeNumber(1, 1_000_000_000).default(10_000_000),
  /** A stream whose client has taken nothing for this long (window full) ends with DEADLINE_EXCEEDED. @default 30000 */
  streamStallMs: wholeNumber(10, 3_600_000).default(30_000),
  /** Calls (streams) open at once on one HTTP/2 connection (`grpc.max_concurrent_streams`). @default 100 */
  maxConcurrentStreams: wholeNumber(1, 1_000_000).default(100),
  /** Where timers come from (the stall timeout); tests pass a manual one. @default systemTimeSource */
  time: timeSourceOption.default(systemTimeSource),
  /** How often grpc.health.v1's status is read again from the service's health. @default 1000 */
  healthIntervalMs: wholeNumber(10, 600_000).default(1000),
  /** On close, calls still running after this long are cut. @default 5000 */
  shutdownGraceMs: wholeNumber(0, 600_000).default(5000),
  /** Where the server logs. @default none (silent) */
  logger,
  /** The metrics to record calls (route `grpc.<Method>`) and ids in. @default none */
  metrics: objectWith<VestaMetrics>(
    'VestaMetrics (createVestaMetrics)',
    'observeRequest',
  ).optional(),
});

/** Options of {@link startGrpcServer}. */
export type GrpcServerOptions = Readonly<z.input<typeof grpcServerOptions.schema>>;
