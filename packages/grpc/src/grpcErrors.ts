import { join } from 'node:path';
import type { status } from '@grpc/grpc-js';
import { Metadata, type ServerErrorResponse } from '@grpc/grpc-js';
import { ERROR_CODES, VestaError, type VestaErrorCode } from '@vesta/core';
import { GRPC_STATUS } from '@vesta/core/kit';
import protobuf from 'protobufjs';
import { VESTA_PROTO_DIR } from './vestaProto.js';

/** The gRPC status of a Vesta error code (core's error table). */
export function grpcStatusOf(code: VestaErrorCode): status {
  return GRPC_STATUS[ERROR_CODES[code].grpc];
}

/** The domain of the google.rpc.ErrorInfo an error carries. */
export const ERROR_DOMAIN = 'vesta';

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

/**
 * A failed call's answer: the code's status and the message, with trailers `vesta-code`,
 * `retry-after-ms` and `grpc-status-details-bin` (google.rpc.Status with an ErrorInfo). A
 * non-Vesta error answers INTERNAL without its message.
 */
export function grpcErrorOf(error: unknown): ServerErrorResponse {
  const e = VestaError.is(error) ? error : new VestaError('INTERNAL_ERROR', 'internal error');
  const code = grpcStatusOf(e.code);
  const metadata = new Metadata();
  metadata.set('vesta-code', e.code);
  const retryAfterMs = e.details?.['retryAfterMs'];
  const extra: Record<string, string> = {};
  if (typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs)) {
    metadata.set('retry-after-ms', String(Math.ceil(retryAfterMs)));
    extra['retryAfterMs'] = String(Math.ceil(retryAfterMs));
  }
  const info = rpc.ErrorInfo.encode({ reason: e.code, domain: ERROR_DOMAIN, metadata: extra });
  const details = rpc.Status.encode({
    code,
    message: e.message,
    details: [{ type_url: 'type.googleapis.com/google.rpc.ErrorInfo', value: info.finish() }],
  }).finish();
  metadata.set('grpc-status-details-bin', Buffer.from(details));
  return Object.assign(new Error(e.message), { code, details: e.message, metadata });
}
