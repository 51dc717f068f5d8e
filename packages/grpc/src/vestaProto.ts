import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GrpcObject, ServiceDefinition } from '@grpc/grpc-js';
import { loadPackageDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { VestaError } from '@vesta/core';
import protobuf from 'protobufjs';

/** The directory of the shipped `.proto` files (`vesta/v1/vesta.proto`, google.rpc's). */
export const VESTA_PROTO_DIR = fileURLToPath(new URL('../proto', import.meta.url));

/** grpc.health.v1's `.proto`, as grpc-health-check ships it. */
export { protoPath as HEALTH_PROTO_PATH } from 'grpc-health-check';

export const VESTA_SERVICE_NAME = 'vesta.v1.Vesta';

/** google.rpc's Status and ErrorInfo, from the shipped `.proto` files. */
export const rpc = (() => {
  const root = new protobuf.Root();
  // google/protobuf/any.proto is one of protobufjs' own common files.
  root.resolvePath = (_origin, target) =>
    target.startsWith('google/protobuf/') ? target : join(VESTA_PROTO_DIR, target);
  root.loadSync(['google/rpc/status.proto', 'google/rpc/error_details.proto']);
  return {
    Status: root.lookupType('google.rpc.Status'),
    ErrorInfo: root.lookupType('google.rpc.ErrorInfo'),
  };
})();

/** The loaded `vesta.v1` package: .proto field names, 64-bit fields as strings, enums as names. */
export function loadVestaProto(): GrpcObject {
  const shape = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
  const definition = loadSync('vesta/v1/vesta.proto', { includeDirs: [VESTA_PROTO_DIR], ...shape });
  return loadPackageDefinition(definition);
}

/** GenId's and GenIds' answers, encoded by hand from bigints (protobufjs would go through decimal strings). */
const FIXED64_FIELD_1 = 0x09; // field 1, wire type 1 (64-bit)
const PACKED_FIELD_1 = 0x0a; // field 1, wire type 2 (length-delimited, packed)

export function encodeGenIdResponse({ id }: { readonly id: bigint }): Buffer {
  const bytes = Buffer.allocUnsafe(9);
  bytes[0] = FIXED64_FIELD_1;
  bytes.writeBigUInt64LE(id, 1);
  return bytes;
}

export function encodeIdBatch({ ids }: { readonly ids: readonly bigint[] }): Buffer {
  if (ids.length === 0) return Buffer.alloc(0);
  let length = 8 * ids.length;
  let varintBytes = 1;
  while (length >= 2 ** (7 * varintBytes)) varintBytes++;
  const bytes = Buffer.allocUnsafe(1 + varintBytes + length);
  bytes[0] = PACKED_FIELD_1;
  let at = 1;
  while (length >= 0x80) {
    bytes[at++] = (length & 0x7f) | 0x80;
    length = Math.floor(length / 128);
  }
  bytes[at++] = length;
  for (const id of ids) at = bytes.writeBigUInt64LE(id, at);
  return bytes;
}

/**
 * The `Vesta` service's definition; its request decoders do not throw: bad bytes decode to the
 * INVALID_ARGUMENT their handler answers (grpc-js answers a throwing decoder INTERNAL).
 */
export function vestaServiceDefinition(proto: GrpcObject = loadVestaProto()): ServiceDefinition {
  const v1 = (proto['vesta'] as GrpcObject)['v1'] as GrpcObject;
  const service = (v1['Vesta'] as unknown as { service: ServiceDefinition }).service;
  const encoders: Record<string, (value: never) => Buffer> = {
    GenId: encodeGenIdResponse,
    GenIds: encodeIdBatch,
  };
  const methods = Object.entries(service).map(([name, method]) => {
    const requestDeserialize = (bytes: Buffer): unknown => {
      try {
        return method.requestDeserialize(bytes);
      } catch (error) {
        const reason = error instanceof Error ? `: ${error.message}` : '';
        const why = `the ${name} request is not a valid protobuf message of its type${reason}`;
        return new VestaError('INVALID_ARGUMENT', why, { cause: error });
      }
    };
    const responseSerialize = encoders[name] ?? method.responseSerialize;
    return [name, { ...method, requestDeserialize, responseSerialize }];
  });
  return Object.fromEntries(methods);
}
