import { setImmediate } from 'node:timers/promises';
import type {
  sendUnaryData,
  ServerUnaryCall,
  ServerWritableStream,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import {
  decodeUuid,
  uuidBytes,
  VestaError,
  type IdService,
  type IdType,
  type MakeIdFields,
} from '@vesta/core';
import { checkBatchCount, createBearerTokenCheck, statusOf } from '@vesta/core/kit';
import { grpcErrorOf } from './grpcErrors.js';
import type { ResolvedGrpcServerOptions } from './GrpcServerOptions.js';

/** Ids in one streamed message at most: 128 KiB of fixed64s. */
const ID_BATCH = 16_384;
/** UUIDs in one streamed message at most: about 150 KiB of canonical text. */
const UUID_BATCH = 4096;

type Request = Record<string, unknown>;
type Unary = (request: Request) => Promise<object> | object;
type Streamed = (request: Request, send: (message: object) => Promise<boolean>) => Promise<void>;

function u64(value: unknown): bigint {
  return BigInt(typeof value === 'string' && value !== '' ? value : '0');
}

/** A uint64 field that must fit a JavaScript number: INVALID_ARGUMENT beyond 2^53-1. */
function safeNumber(value: unknown, what: string): number {
  const n = u64(value);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new VestaError('INVALID_ARGUMENT', `${what} must be at most 2^53-1, got ${n}`);
  }
  return Number(n);
}

function streamCount(value: unknown, max: number): number {
  const count = typeof value === 'number' ? value : 0;
  checkBatchCount(count, max);
  return count;
}

/** `{ [key]: value }` of a proto3 `optional` field the request set, else `{}`. */
function given<K extends string, T>(request: Request, name: string, key: K): { [P in K]?: T } {
  const value = request[name];
  return value === undefined || value === null ? {} : ({ [key]: value } as { [P in K]?: T });
}

/** The handlers of `vesta.v1.Vesta`: each checks the token, answers or maps the error, records the call. */
export function vestaHandlers(o: ResolvedGrpcServerOptions): UntypedServiceImplementation {
  const { service, generators, metrics, maxStreamCount } = o;
  const authorized = o.authToken === undefined ? undefined : createBearerTokenCheck(o.authToken);

  /** Runs `work` once the token is checked; a request that is not protobuf arrives as its INVALID_ARGUMENT. */
  const checked = <T>(
    call: { metadata: { get(key: string): unknown[] }; request: Request | VestaError },
    work: (request: Request) => T | Promise<T>,
  ): Promise<T> =>
    Promise.resolve().then(() => {
      const header = call.metadata.get('authorization')[0];
      if (authorized !== undefined && !authorized(typeof header === 'string' ? header : undefined))
        throw new VestaError('UNAUTHORIZED', 'a valid "authorization: Bearer <token>" is required');
      if (VestaError.is(call.request)) throw call.request;
      return work(call.request);
    });
  const record = (method: string, started: number, error?: unknown): void => {
    const code = error === undefined ? undefined : VestaError.from(error).code;
    const seconds = (performance.now() - started) / 1000;
    metrics?.observeRequest(`grpc.${method}`, code === undefined ? 200 : statusOf(code), seconds);
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
    (method: string, answer: Unary) =>
    (
      call: ServerUnaryCall<Request | VestaError, object>,
      callback: sendUnaryData<object>,
    ): void => {
      const started = performance.now();
      checked(call, answer).then(
        (reply) => {
          record(method, started);
          callback(null, reply);
        },
        (error: unknown) => {
          record(method, started, error);
          callback(grpcErrorOf(error));
        },
      );
    };

  const streamed =
    (method: string, run: Streamed) =>
    (call: ServerWritableStream<Request | VestaError, object>): void => {
      const started = performance.now();
      // One message in flight, the next made once HTTP/2's flow control took the last. False
      // once the client is gone; TIMEOUT when its transport took nothing for streamStallMs.
      const send = (message: object): Promise<boolean> =>
        new Promise((resolve, reject) => {
          if (call.cancelled) {
            resolve(false);
            return;
          }
          let settled = false;
          const settle = (outcome: boolean | VestaError): void => {
            if (settled) return;
            settled = true;
            stall.cancel();
            call.off('cancelled', onCancelled);
            if (outcome instanceof VestaError) reject(outcome);
            else resolve(outcome);
          };
          const onCancelled = (): void => settle(false);
          const stall = o.time.setTimer(() => {
            settle(
              new VestaError(
                'TIMEOUT',
                `the client read nothing of its ${method} stream for ${o.streamStallMs} ms`,
              ),
            );
          }, o.streamStallMs);
          call.once('cancelled', onCancelled);
          call.write(message, () => settle(!call.cancelled));
        });
      checked(call, (request) => run(request, send)).then(
        () => {
          record(method, started);
          if (!call.cancelled) call.end();
        },
        (error: unknown) => {
          record(method, started, error);
          if (!call.cancelled) call.emit('error', grpcErrorOf(error));
        },
      );
    };

  /** Streams `count` items, a batch a message; between batches the event loop takes its turn. */
  const stream = async <T>(
    count: number,
    size: number,
    make: (n: number) => Promise<T[]>,
    message: (items: T[]) => object,
    send: (message: object) => Promise<boolean>,
  ): Promise<void> => {
    const batch = Math.min(size, service.info().maxBatch);
    for (let left = count; left > 0;) {
      const n = Math.min(left, batch);
      const items = await make(n);
      left -= n;
      metrics?.countIdsIssued(n);
      if (!(await send(message(items)))) return;
      await setImmediate();
    }
  };

  return {
    GenId: unary('GenId', async (request) => {
      const id = await generatorOf(request).genId();
      metrics?.countIdsIssued(1);
      return { id };
    }),
    GenIds: streamed('GenIds', (request, send) => {
      const count = streamCount(request['count'], maxStreamCount);
      const generator = generatorOf(request);
      return stream(
        count,
        ID_BATCH,
        (n) => generator.genIds(n),
        (ids) => ({ ids }),
        send,
      );
    }),
    GenUuid: unary('GenUuid', async () => {
      const uuid = await service.genUuid();
      metrics?.countIdsIssued(1);
      return { uuid, value: Buffer.from(uuidBytes(uuid)) };
    }),
    GenUuids: streamed('GenUuids', (request, send) => {
      const count = streamCount(request['count'], maxStreamCount);
      return stream(
        count,
        UUID_BATCH,
        (n) => service.genUuids(n),
        (uuids) => ({ uuids }),
        send,
      );
    }),
    ExpId: unary('ExpId', (request) => {
      const id = u64(request['id']);
      const fields = service.expId(id);
      const date = service.transTime(fields.time, fields.type);
      return {
        id: String(id),
        ...fields,
        gen_method: fields.genMethod,
        unix_ms: String(date.getTime()),
        date: date.toISOString(),
      };
    }),
    ExpUuid: unary('ExpUuid', (request) => {
      const f = decodeUuid(String(request['uuid'] ?? ''));
      return {
        uuid: f.uuid,
        version: f.version,
        rfc9562: f.rfc9562,
        vesta: f.vesta,
        date: f.date ?? '',
        ...(f.unixMs === undefined ? {} : { unix_ms: String(f.unixMs) }),
        ...(f.vesta
          ? {
              counter: f.counter,
              machine: f.machine,
              gen_method: f.genMethod,
              type: f.type,
              id_version: f.idVersion,
            }
          : {}),
      };
    }),
    MakeId: unary('MakeId', (request) => {
      const fields: MakeIdFields = {
        time: safeNumber(request['time'], 'time'),
        seq: request['seq'] as number,
        ...given<'machine', number>(request, 'machine', 'machine'),
        ...given<'genMethod', number>(request, 'gen_method', 'genMethod'),
        ...given<'type', IdType>(request, 'type', 'type'),
        ...given<'version', number>(request, 'version', 'version'),
      };
      return { id: String(service.makeId(fields)) };
    }),
    TransTime: unary('TransTime', (request) => {
      const { type } = given<'type', IdType>(request, 'type', 'type');
      const date = service.transTime(safeNumber(request['time'], 'time'), type);
      return { unix_ms: String(date.getTime()), date: date.toISOString() };
    }),
    Info: unary('Info', () => {
      const info = service.info();
      return {
        machine: info.machine,
        gen_method: info.genMethod,
        type: info.type,
        type_name: info.typeName,
        version: info.version,
        epoch_ms: String(info.epochMs),
        unit_ms: info.unitMs,
        max_batch: info.maxBatch,
        preset: info.preset ?? '',
        json: JSON.stringify(info),
      };
    }),
  };
}
