import { setImmediate } from 'node:timers/promises';
import {
  Metadata,
  type sendUnaryData,
  type ServerErrorResponse,
  type ServerUnaryCall,
  type ServerWritableStream,
  type status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import {
  decodeUuid,
  ERROR_CODES,
  uuidBytes,
  VestaError,
  type IdService,
  type IdType,
  type MakeIdFields,
  type VestaErrorCode,
} from '@vesta/core';
import { checkBatchCount, createBearerTokenCheck, GRPC_STATUS, statusOf } from '@vesta/core/kit';
import type { grpcServerOptions } from './GrpcServerOptions.js';
import { rpc } from './vestaProto.js';

/** The gRPC status of a Vesta error code (core's error table). */
export const grpcStatusOf = (code: VestaErrorCode): status => GRPC_STATUS[ERROR_CODES[code].grpc];

/** The domain of the google.rpc.ErrorInfo an error carries. */
export const ERROR_DOMAIN = 'vesta';

/** A failed call's status and message, trailers `vesta-code`, `retry-after-ms` and an ErrorInfo; else INTERNAL. */
function grpcErrorOf(error: unknown): ServerErrorResponse {
  const e = VestaError.is(error) ? error : new VestaError('INTERNAL_ERROR', 'internal error');
  const code = grpcStatusOf(e.code);
  const metadata = new Metadata();
  metadata.set('vesta-code', e.code);
  const retryAfterMs = e.details?.['retryAfterMs'];
  const extra: Record<string, string> = {};
  if (typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs)) {
    extra['retryAfterMs'] = String(Math.ceil(retryAfterMs));
    metadata.set('retry-after-ms', extra['retryAfterMs']);
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

/** Ids in one streamed message at most: 128 KiB of fixed64s. */
const ID_BATCH = 16_384;
/** UUIDs in one streamed message at most: about 150 KiB of canonical text. */
const UUID_BATCH = 4096;

type Request = Record<string, unknown>;
type Call = { metadata: { get(key: string): unknown[] }; request: Request | VestaError };
type Send = (message: object) => Promise<boolean>;
type Take = (n: number) => Promise<unknown[]>;

const u64 = (value: unknown): bigint =>
  BigInt(typeof value === 'string' && value !== '' ? value : '0');

/** A uint64 field that must fit a JavaScript number: INVALID_ARGUMENT beyond 2^53-1. */
function safeNumber(value: unknown, what: string): number {
  const n = u64(value);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new VestaError('INVALID_ARGUMENT', `${what} must be at most 2^53-1, got ${n}`);
  }
  return Number(n);
}

/** `fields` under the .proto's names (`genMethod` as `gen_method`); fields it has not are dropped. */
const snake = (fields: object): Request =>
  Object.fromEntries(
    Object.entries(fields).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
  );

/** The proto3 `optional` fields of `fields` the request set, camelCased (`gen_method` as `genMethod`). */
const given = (request: Request, fields: string[]): Record<string, unknown> =>
  Object.fromEntries(
    fields.flatMap((field) => {
      const value = request[field];
      const key = field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
      return value === undefined || value === null ? [] : [[key, value]];
    }),
  );

/** The handlers of `vesta.v1.Vesta`: each checks the token, answers or maps the error, records the call. */
export function vestaHandlers(
  o: ReturnType<typeof grpcServerOptions.resolve>,
): UntypedServiceImplementation {
  const { service, generators, metrics, maxStreamCount } = o;
  const authorized = o.authToken === undefined ? undefined : createBearerTokenCheck(o.authToken);

  /** Runs `work` once the token is checked and records the call. */
  const run = async <T>(method: string, call: Call, work: (request: Request) => T): Promise<T> => {
    const started = performance.now();
    const record = (code?: VestaErrorCode): void => {
      const seconds = (performance.now() - started) / 1000;
      metrics?.observeRequest(`grpc.${method}`, code === undefined ? 200 : statusOf(code), seconds);
    };
    try {
      await undefined;
      const header = call.metadata.get('authorization')[0];
      if (authorized !== undefined && !authorized(typeof header === 'string' ? header : undefined))
        throw new VestaError('UNAUTHORIZED', 'a valid "authorization: Bearer <token>" is required');
      if (VestaError.is(call.request)) throw call.request;
      const result = await work(call.request);
      record();
      return result;
    } catch (error) {
      record(VestaError.from(error).code);
      throw error;
    }
  };
  const generatorOf = (request: Request): IdService => {
    const name = request['generator'];
    if (typeof name !== 'string' || name === '') return service;
    if (generators === undefined) {
      throw new VestaError('UNKNOWN_GENERATOR', `no generator is named ${JSON.stringify(name)}`);
    }
    return generators.get(name);
  };

  const unary =
    (method: string, answer: (request: Request) => Promise<object> | object) =>
    (call: ServerUnaryCall<Request | VestaError, object>, done: sendUnaryData<object>): void => {
      run(method, call, answer).then(
        (reply) => done(null, reply),
        (error: unknown) => done(grpcErrorOf(error)),
      );
    };

  /** Streams `count` items of `make`, at most `size` a message; the event loop takes its turn between. */
  const streamed =
    (method: string, size: number, field: string, make: (request: Request) => Take) =>
    (call: ServerWritableStream<Request | VestaError, object>): void => {
      // One message in flight, the next made once HTTP/2's flow control took the last. False
      // once the client is gone; TIMEOUT when its transport took nothing for streamStallMs.
      const send: Send = (message) =>
        new Promise((resolve, reject) => {
          if (call.cancelled) return resolve(false);
          const settle = (outcome: boolean | VestaError): void => {
            stall.cancel();
            call.off('cancelled', onCancelled);
            if (outcome instanceof VestaError) reject(outcome);
            else resolve(outcome);
          };
          const onCancelled = (): void => settle(false);
          const stall = o.time.setTimer(() => {
            const why = `the client read nothing of its ${method} stream for ${o.streamStallMs} ms`;
            settle(new VestaError('TIMEOUT', why));
          }, o.streamStallMs);
          call.once('cancelled', onCancelled);
          call.write(message, () => settle(!call.cancelled));
        });
      const stream = async (request: Request): Promise<void> => {
        const count = typeof request['count'] === 'number' ? request['count'] : 0;
        checkBatchCount(count, maxStreamCount);
        const take = make(request);
        const batch = Math.min(size, service.info().maxBatch);
        for (let left = count; left > 0;) {
          const n = Math.min(left, batch);
          const items = await take(n);
          left -= n;
          metrics?.countIdsIssued(n);
          if (!(await send({ [field]: items }))) return;
          await setImmediate();
        }
      };
      run(method, call, stream).then(
        () => call.cancelled || call.end(),
        (error: unknown) => call.cancelled || call.emit('error', grpcErrorOf(error)),
      );
    };

  return {
    GenId: unary('GenId', async (request) => {
      const id = await generatorOf(request).genId();
      metrics?.countIdsIssued(1);
      return { id };
    }),
    GenIds: streamed('GenIds', ID_BATCH, 'ids', (request) => {
      const generator = generatorOf(request);
      return (n) => generator.genIds(n);
    }),
    GenUuid: unary('GenUuid', async () => {
      const uuid = await service.genUuid();
      metrics?.countIdsIssued(1);
      return { uuid, value: Buffer.from(uuidBytes(uuid)) };
    }),
    GenUuids: streamed('GenUuids', UUID_BATCH, 'uuids', () => (n) => service.genUuids(n)),
    ExpId: unary('ExpId', (request) => {
      const id = u64(request['id']);
      const fields = service.expId(id);
      const date = service.transTime(fields.time, fields.type);
      return {
        ...snake(fields),
        id: String(id),
        unix_ms: date.getTime(),
        date: date.toISOString(),
      };
    }),
    ExpUuid: unary('ExpUuid', (request) => {
      const fields = decodeUuid(String(request['uuid'] ?? ''));
      return { ...snake(fields), date: fields.date ?? '' };
    }),
    MakeId: unary('MakeId', (request) => {
      const fields = {
        time: safeNumber(request['time'], 'time'),
        seq: request['seq'] as number,
        ...given(request, ['machine', 'gen_method', 'type', 'version']),
      } as MakeIdFields;
      return { id: String(service.makeId(fields)) };
    }),
    TransTime: unary('TransTime', (request) => {
      const { type } = given(request, ['type']) as { type?: IdType };
      const date = service.transTime(safeNumber(request['time'], 'time'), type);
      return { unix_ms: String(date.getTime()), date: date.toISOString() };
    }),
    Info: unary('Info', () => {
      const info = service.info();
      return { ...snake(info), json: JSON.stringify(info) };
    }),
  };
}
