import { fileURLToPath } from 'node:url';
import type { GrpcObject, MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import { loadPackageDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { VestaError } from '@vesta/core';
import { encodeGenIdResponse, encodeIdBatch } from './idMessages.js';

/** The directory of the shipped `.proto` files: `vesta/v1/vesta.proto` and the google.rpc ones it sends. */
export const VESTA_PROTO_DIR = fileURLToPath(new URL('../proto', import.meta.url));

/**
 * grpc.health.v1's `.proto` (`health/v1/health.proto` under its root, as grpc-health-check ships
 * it), for clients that generate stubs of the health service too.
 */
export { protoPath as HEALTH_PROTO_PATH } from 'grpc-health-check';

/** The service's full name, as grpc.health.v1 and reflection name it. */
export const VESTA_SERVICE_NAME = 'vesta.v1.Vesta';

/**
 * The loaded `vesta.v1` package. Field names are the .proto's (`gen_method`), 64-bit fields are decimal strings both ways (never a
 * `number`), enums names, absent fields their defaults, and proto3 `optional` fields absent
 * unless set.
 */
export function loadVestaProto(): GrpcObject {
  const definition = loadSync('vesta/v1/vesta.proto', {
    includeDirs: [VESTA_PROTO_DIR],
    // Field names as the .proto writes them (gen_method), as every other language sees them.
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return loadPackageDefinition(definition);
}

/**
 * A method's request decoder that does not throw: bytes that are not the method's request
 * message decode to the INVALID_ARGUMENT its handler answers, through {@link grpcErrorOf} as
 * every failed call (grpc-js answers a decoder that throws INTERNAL, without the Vesta code).
 */
function refusingMalformed(
  name: string,
  method: MethodDefinition<unknown, unknown>,
): MethodDefinition<unknown, unknown> {
  const decode = method.requestDeserialize;
  return {
    ...method,
    requestDeserialize: (bytes: Buffer): unknown => {
      try {
        return decode(bytes);
      } catch (error) {
        const reason = error instanceof Error ? `: ${error.message}` : '';
        return new VestaError(
          'INVALID_ARGUMENT',
          `the ${name} request is not a valid protobuf message of its type${reason}`,
          { cause: error },
        );
      }
    },
  };
}

/**
 * The `Vesta` service's definition, for `server.addService`: GenId's and GenIds' answers are
 * encoded by hand from bigints ({@link encodeGenIdResponse}, {@link encodeIdBatch}); a request
 * that is not protobuf decodes to its INVALID_ARGUMENT ({@link refusingMalformed}), which the
 * handlers answer.
 */
export function vestaServiceDefinition(proto: GrpcObject = loadVestaProto()): ServiceDefinition {
  const v1 = (proto['vesta'] as GrpcObject)['v1'] as GrpcObject;
  const service = (v1['Vesta'] as unknown as { service: ServiceDefinition }).service;
  const { GenId, GenIds } = service;
  if (GenId === undefined || GenIds === undefined) throw new TypeError('vesta.proto lacks GenId');
  const methods: ServiceDefinition = {
    ...service,
    GenId: { ...GenId, responseSerialize: encodeGenIdResponse as (value: unknown) => Buffer },
    GenIds: { ...GenIds, responseSerialize: encodeIdBatch as (value: unknown) => Buffer },
  };
  return Object.fromEntries(
    Object.entries(methods).map(([name, method]) => [name, refusingMalformed(name, method)]),
  );
}
