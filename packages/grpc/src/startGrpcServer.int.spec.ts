import {
  Client as RawClient,
  credentials,
  makeGenericClientConstructor,
  Metadata,
  status,
  type Client,
  type ClientReadableStream,
  type GrpcObject,
  type ServiceError,
} from '@grpc/grpc-js';
import { decodeUuid, silentLogger, type IdService } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import { createVestaMetrics } from '@vesta/metrics';
import { service as healthService } from 'grpc-health-check';
import { eventually } from '@vesta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect as connectHttp2 } from 'node:http2';
import { loadVestaProto, startGrpcServer, type GrpcServerHandle } from './index.js';
import { rpc, vestaServiceDefinition } from './vestaProto.js';

/** Debian's python3, which python3-grpcio serves (scripts/ensure-grpc-python.sh). */
const PYTHON = '/usr/bin/python3';
const STALLED_READER = new URL('./__fixtures__/stalled_reader.py', import.meta.url).pathname;
const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

type Message = Record<string, unknown>;
type UnaryMethod = (
  request: Message,
  metadata: Metadata,
  callback: (error: ServiceError | null, reply: Message) => void,
) => void;
type StreamMethod = (request: Message, metadata: Metadata) => ClientReadableStream<Message>;
type VestaClient = Client & Record<string, UnaryMethod & StreamMethod>;

const proto = loadVestaProto();
const VestaClientCtor = ((proto['vesta'] as GrpcObject)['v1'] as GrpcObject)[
  'Vesta'
] as unknown as new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
) => VestaClient;
const HealthClientCtor = makeGenericClientConstructor(healthService, 'Health');

async function serve(
  service: IdService,
  extra: Record<string, unknown> = {},
): Promise<{ server: GrpcServerHandle; client: VestaClient }> {
  const server = await startGrpcServer({ service, port: 0, logger: silentLogger, ...extra });
  cleanup.push(() => server.close());
  const client = new VestaClientCtor(server.url, credentials.createInsecure());
  cleanup.push(() => client.close());
  return { server, client };
}

async function embedded(extra: Record<string, unknown> = {}): Promise<IdService> {
  const ids = await createEmbeddedIdService({ machineId: 9, logger: silentLogger, ...extra });
  cleanup.push(() => ids.close());
  return ids;
}

function call(
  client: VestaClient,
  method: string,
  request: Message = {},
  metadata = new Metadata(),
): Promise<Message> {
  return new Promise((resolve, reject) => {
    (client[method] as UnaryMethod)(request, metadata, (error, reply) =>
      error === null ? resolve(reply) : reject(error),
    );
  });
}

async function failed(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error('expected the call to fail');
}

async function streamAll(
  client: VestaClient,
  method: string,
  request: Message,
  field: string,
): Promise<{ items: string[]; messages: number }> {
  const stream = (client[method] as StreamMethod)(request, new Metadata());
  const items: string[] = [];
  let messages = 0;
  for await (const message of stream as AsyncIterable<Message>) {
    messages++;
    items.push(...(message[field] as string[]));
  }
  return { items, messages };
}

/**
 * A call of `path` carrying `bytes` as its request message, as a client of any language can
 * send them: the error it ends with, or null when it succeeds.
 */
function rawCall(
  client: RawClient,
  path: string,
  streamed: boolean,
  bytes: Buffer,
): Promise<ServiceError | null> {
  const same = (b: Buffer): Buffer => b;
  return new Promise((resolve) => {
    if (!streamed) {
      client.makeUnaryRequest(path, same, same, bytes, (error) => resolve(error ?? null));
      return;
    }
    const stream = client.makeServerStreamRequest(path, same, same, bytes);
    stream.on('data', () => undefined);
    stream.on('error', (error: ServiceError) => resolve(error));
    stream.on('end', () => resolve(null));
  });
}

/** The Vesta code of a failed call, read from both places it is sent: the trailer and the ErrorInfo. */
function vestaCodeOf(error: ServiceError): { trailer: unknown; reason: unknown; domain: unknown } {
  const bin = error.metadata.get('grpc-status-details-bin')[0] as Buffer;
  const statusMessage = rpc.Status.toObject(rpc.Status.decode(bin)) as {
    details: { type_url: string; value: Uint8Array }[];
  };
  const [any] = statusMessage.details;
  const info = rpc.ErrorInfo.toObject(rpc.ErrorInfo.decode(any?.value ?? new Uint8Array())) as {
    reason: string;
    domain: string;
  };
  expect(any?.type_url).toBe('type.googleapis.com/google.rpc.ErrorInfo');
  return { trailer: error.metadata.get('vesta-code')[0], reason: info.reason, domain: info.domain };
}

describe('the gRPC service', () => {
  it('issues ids and UUIDs, streams large batches in order, decodes, makes and reads times, all ids as decimal strings', async () => {
    const ids = await embedded();
    const { client } = await serve(ids);
    const one = (await call(client, 'GenId')).id as string;
    expect(one).toMatch(/^[0-9]+$/);
    expect(ids.expId(BigInt(one)).machine).toBe(9);

    const { items, messages } = await streamAll(client, 'GenIds', { count: 100_000 }, 'ids');
    expect(items).toHaveLength(100_000);
    expect(messages).toBeGreaterThan(1);
    const asBig = items.map(BigInt);
    expect(asBig.every((id, i) => i === 0 || id > (asBig[i - 1] as bigint))).toBe(true);
    expect(asBig[0]).toBeGreaterThan(BigInt(one));

    const uuid = await call(client, 'GenUuid');
    expect(decodeUuid(uuid.uuid as string)).toMatchObject({ version: 7, machine: 9, genMethod: 0 });
    expect(Buffer.from(uuid.value as Uint8Array).toString('hex')).toBe(
      (uuid.uuid as string).replaceAll('-', ''),
    );
    const uuids = await streamAll(client, 'GenUuids', { count: 20_000 }, 'uuids');
    expect(new Set(uuids.items).size).toBe(20_000);
    expect(uuids.items.every((u, i) => i === 0 || u > (uuids.items[i - 1] as string))).toBe(true);

    const ours = await call(client, 'ExpUuid', { uuid: uuids.items[9] });
    const fields = decodeUuid(uuids.items[9] as string);
    expect(ours).toMatchObject({
      uuid: fields.uuid,
      version: 7,
      rfc9562: true,
      vesta: true,
      unix_ms: String(fields.unixMs),
      date: fields.date,
      counter: fields.counter,
      machine: 9,
      gen_method: 0,
      type: 0,
      id_version: 0,
    });
    const v4 = crypto.randomUUID();
    const other = await call(client, 'ExpUuid', { uuid: v4 });
    expect(other).toMatchObject({ uuid: v4, version: 4, vesta: false, date: '' });
    expect(other.machine ?? undefined).toBeUndefined();
    const notUuid = await failed(call(client, 'ExpUuid', { uuid: 'nope' }));
    expect(notUuid.code).toBe(status.INVALID_ARGUMENT);

    const decoded = await call(client, 'ExpId', { id: items[7] });
    const local = ids.expId(BigInt(items[7] as string));
    expect(decoded).toMatchObject({
      id: items[7],
      machine: local.machine,
      seq: local.seq,
      time: String(local.time),
      gen_method: 0,
      type: local.type,
      version: local.version,
      unix_ms: String(ids.transTime(local.time).getTime()),
      date: ids.transTime(local.time).toISOString(),
    });
    expect((await call(client, 'MakeId', { time: 5, seq: 3 })).id).toBe(
      String(ids.makeId({ time: 5, seq: 3 })),
    );
    expect((await call(client, 'MakeId', { time: 5, seq: 3, machine: 0 })).id).toBe(
      String(ids.makeId({ time: 5, seq: 3, machine: 0 })),
    );
    expect(await call(client, 'TransTime', { time: 90 })).toEqual({
      unix_ms: String(ids.transTime(90).getTime()),
      date: ids.transTime(90).toISOString(),
    });
    const info = await call(client, 'Info');
    expect(info).toMatchObject({ machine: 9, gen_method: 0, type_name: 'max-peak' });
    expect(JSON.parse(info.json as string)).toMatchObject({ machine: 9, genMethod: 0 });
  });

  it('answers bad calls with the mapped gRPC status, the Vesta code in a trailer and in a google.rpc.ErrorInfo', async () => {
    const { client } = await serve(await embedded());
    const zero = await failed(streamAll(client, 'GenIds', { count: 0 }, 'ids'));
    expect(zero.code).toBe(status.INVALID_ARGUMENT);
    expect(vestaCodeOf(zero)).toEqual({
      trailer: 'INVALID_ARGUMENT',
      reason: 'INVALID_ARGUMENT',
      domain: 'vesta',
    });
    const tooMany = await failed(streamAll(client, 'GenUuids', { count: 10_000_001 }, 'uuids'));
    expect(tooMany.code).toBe(status.INVALID_ARGUMENT);
    const unknown = await failed(call(client, 'GenId', { generator: 'orders' }));
    expect(unknown.code).toBe(status.NOT_FOUND);
    expect(vestaCodeOf(unknown).trailer).toBe('UNKNOWN_GENERATOR');
    const outOfRange = await failed(call(client, 'MakeId', { time: 5, seq: 3, machine: 5000 }));
    expect(outOfRange.code).toBe(status.INVALID_ARGUMENT);
    const huge = await failed(call(client, 'TransTime', { time: '18446744073709551615' }));
    expect(huge.code).toBe(status.INVALID_ARGUMENT);

    // uid-generator's worker id is 22 bits: no room in a UUID's 16.
    const uid = await embedded({ layout: 'uid-generator', machineId: 10 });
    const { client: uidClient } = await serve(uid);
    const refused = await failed(call(uidClient, 'GenUuid'));
    expect(refused.code).toBe(status.FAILED_PRECONDITION);
    expect(vestaCodeOf(refused).reason).toBe('INVALID_OPTIONS');
  });

  it('answers a request that is not protobuf INVALID_ARGUMENT with its Vesta code, on every method', async () => {
    const { server } = await serve(await embedded());
    const raw = new RawClient(server.url, credentials.createInsecure());
    cleanup.push(() => raw.close());
    const methods = Object.entries(vestaServiceDefinition());
    expect(methods.map(([name]) => name).sort()).toEqual([
      'ExpId',
      'ExpUuid',
      'GenId',
      'GenIds',
      'GenUuid',
      'GenUuids',
      'Info',
      'MakeId',
      'TransTime',
    ]);
    for (const [name, method] of methods) {
      // Bytes no message can decode: a field 1 varint that never ends, a length-delimited field
      // 31 whose length never ends, wire type 7 (none is), and ExpId's fixed64 id cut after 2 of
      // its 8 bytes (decoders read a field by its declared type, so that one is ExpId's only).
      const malformed = [[0x08, 0xff], [0xfa, 0x01, 0xff], [0x0f]];
      if (name === 'ExpId') malformed.push([0x09, 0x01, 0x02]);
      for (const bytes of malformed.map((b) => Buffer.from(b))) {
        const error = await rawCall(raw, method.path, method.responseStream, bytes);
        expect(error, `${name} ${bytes.toString('hex')}`).not.toBeNull();
        const { code, details, metadata } = error as ServiceError;
        expect({ name, code, details, trailer: metadata.get('vesta-code')[0] }).toEqual({
          name,
          code: status.INVALID_ARGUMENT,
          details: expect.stringMatching(
            new RegExp(`^the ${name} request is not a valid protobuf`),
          ),
          trailer: 'INVALID_ARGUMENT',
        });
        expect(vestaCodeOf(error as ServiceError)).toMatchObject({
          reason: 'INVALID_ARGUMENT',
          domain: 'vesta',
        });
      }
    }
  });

  it('takes a bearer token in the metadata when it has one (health needs none), and records calls in the metrics', async () => {
    const metrics = createVestaMetrics();
    const { server, client } = await serve(await embedded(), {
      authToken: 'sesame-sesame',
      metrics,
    });
    const refused = await failed(call(client, 'GenId'));
    expect(refused.code).toBe(status.UNAUTHENTICATED);
    expect(vestaCodeOf(refused).trailer).toBe('UNAUTHORIZED');
    const wrong = new Metadata();
    wrong.set('authorization', 'Bearer sesame');
    expect((await failed(call(client, 'GenId', {}, wrong))).code).toBe(status.UNAUTHENTICATED);
    const right = new Metadata();
    right.set('authorization', 'Bearer sesame-sesame');
    expect((await call(client, 'GenId', {}, right)).id).toMatch(/^[0-9]+$/);

    const health = new HealthClientCtor(server.url, credentials.createInsecure());
    cleanup.push(() => health.close());
    const answer = await new Promise<Message>((resolve, reject) =>
      (health as unknown as Record<string, UnaryMethod>)['Check']?.(
        { service: 'vesta.v1.Vesta' },
        new Metadata(),
        (error, reply) => (error === null ? resolve(reply) : reject(error)),
      ),
    );
    expect(answer).toEqual({ status: 'SERVING' });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/vesta_requests_total\{route="grpc.GenId",status="401"\} 2/);
    expect(text).toMatch(/vesta_requests_total\{route="grpc.GenId",status="200"\} 1/);
  });

  it('reports NOT_SERVING through grpc.health.v1 once the service cannot issue, and answers UNAVAILABLE', async () => {
    const ids = await embedded();
    const { server, client } = await serve(ids, { healthIntervalMs: 20 });
    const health = new HealthClientCtor(server.url, credentials.createInsecure());
    cleanup.push(() => health.close());
    const watch = (health as unknown as Record<string, StreamMethod>)['Watch']?.(
      { service: '' },
      new Metadata(),
    ) as ClientReadableStream<Message>;
    cleanup.push(() => watch.cancel());
    const statuses: unknown[] = [];
    const waiters: { status: string; resolve: () => void }[] = [];
    watch.on('data', (m: Message) => {
      statuses.push(m.status);
      for (const w of waiters) if (w.status === m.status) w.resolve();
    });
    watch.on('error', () => undefined);
    const reported = (status: string): Promise<void> =>
      statuses.includes(status)
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ status, resolve }));
    await reported('SERVING');
    await ids.close();
    await reported('NOT_SERVING');
    expect(statuses[0]).toBe('SERVING');
    const closed = await failed(call(client, 'GenId'));
    expect(closed.code).toBe(status.UNAVAILABLE);
    expect(vestaCodeOf(closed).trailer).toBe('SERVICE_CLOSED');
  });

  it('streams a health status once, not again at every read while it stays the same', async () => {
    const ids = await embedded();
    let ok = true;
    let reads = 0;
    let readsAwaited: { count: number; resolve: () => void } | undefined;
    // The service as the server sees it, its health read counted and switched by the test.
    const service = new Proxy(ids, {
      get(target, key) {
        if (key === 'health') {
          return () => {
            reads++;
            if (readsAwaited !== undefined && reads >= readsAwaited.count) readsAwaited.resolve();
            return { ...target.health(), ok };
          };
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    const readsReach = (count: number): Promise<void> =>
      new Promise((resolve) => (readsAwaited = { count, resolve }));
    const { server } = await serve(service, { healthIntervalMs: 10 });
    const health = new HealthClientCtor(server.url, credentials.createInsecure());
    cleanup.push(() => health.close());
    const watch = (health as unknown as Record<string, StreamMethod>)['Watch']?.(
      { service: 'vesta.v1.Vesta' },
      new Metadata(),
    ) as ClientReadableStream<Message>;
    cleanup.push(() => watch.cancel());
    watch.on('error', () => undefined);
    const statuses: unknown[] = [];
    let onMessage = (): void => undefined;
    watch.on('data', (m: Message) => {
      statuses.push(m.status);
      onMessage();
    });
    const messages = (count: number): Promise<void> =>
      new Promise((resolve) => {
        onMessage = () => statuses.length >= count && resolve();
        onMessage();
      });
    await messages(1);
    // Eight reads of an unchanged SERVING, then one change: any repeat would come before it.
    await readsReach(reads + 8);
    ok = false;
    await messages(2);
    expect(statuses).toEqual(['SERVING', 'NOT_SERVING']);
  });

  it('stops issuing when a client cancels a stream', async () => {
    const metrics = createVestaMetrics();
    const { client } = await serve(await embedded(), { metrics });
    const stream = (client['GenIds'] as StreamMethod)({ count: 10_000_000 }, new Metadata());
    const first = await new Promise<Message>((resolve) => stream.once('data', resolve));
    expect((first.ids as string[]).length).toBeGreaterThan(0);
    const ended = new Promise<ServiceError>((resolve) => stream.once('error', resolve));
    stream.cancel();
    expect((await ended).code).toBe(status.CANCELLED);
    // The stream's handler ends (it is recorded then) long before its 10,000,000 ids.
    const issued = async (): Promise<number> =>
      Number(/^vesta_ids_issued_total (\d+)$/m.exec(await metrics.registry.metrics())?.[1]);
    const recorded = async (): Promise<boolean> =>
      /route="grpc.GenIds"/.test(await metrics.registry.metrics());
    expect(await eventually(recorded)).toBe(true);
    expect(await issued()).toBeLessThan(1_000_000);
  });

  /** Ids issued by a GenIds stream whose client stops reading, once it was ended for stalling. */
  const issuedAheadOf = async (startReader: (url: string) => () => void): Promise<number> => {
    const metrics = createVestaMetrics();
    const { server } = await serve(await embedded(), { metrics, streamStallMs: 300 });
    cleanup.push(startReader(server.url));
    const text = (): Promise<string> => metrics.registry.metrics();
    expect(
      await eventually(
        async () => /vesta_requests_total\{route="grpc.GenIds",status="504"\} 1/.test(await text()),
        30_000,
      ),
    ).toBe(true);
    return Number(/^vesta_ids_issued_total (\d+)$/m.exec(await text())?.[1]);
  };

  /** The ids-ahead figure the README gives for `reader` (its table under "Streams and memory"). */
  const documentedAhead = (reader: string): number => {
    const row = README.split('\n').find((line) => line.startsWith(`| ${reader} |`));
    return Number(/\| ([0-9,]+) ids/.exec(row ?? '')?.[1]?.replaceAll(',', ''));
  };

  it.each([
    {
      reader: 'a bare HTTP/2 client (64 KiB window)',
      start: (url: string) => {
        // It sends GenIds(10,000,000) and never reads a byte of the answer.
        const session = connectHttp2(`http://${url}`);
        session.on('error', () => undefined);
        const count = Buffer.from([0x08, 0x80, 0xad, 0xe2, 0x04]); // field 1, varint 10,000,000
        const request = session.request({
          ':method': 'POST',
          ':path': '/vesta.v1.Vesta/GenIds',
          'content-type': 'application/grpc',
          te: 'trailers',
        });
        request.on('error', () => undefined);
        request.pause();
        request.end(Buffer.concat([Buffer.from([0, 0, 0, 0, count.length]), count]));
        return () => session.destroy();
      },
    },
    {
      reader: 'grpc-js, one message read, then paused',
      start: (url: string) => {
        const client = new VestaClientCtor(url, credentials.createInsecure());
        const stream = (client['GenIds'] as StreamMethod)({ count: 10_000_000 }, new Metadata());
        stream.on('error', () => undefined);
        stream.once('data', () => stream.pause());
        return () => client.close();
      },
    },
    {
      reader: 'Python grpcio (gRPC C-core), never read',
      start: (url: string) => {
        const python = spawn(PYTHON, [STALLED_READER, url], {
          stdio: ['pipe', 'ignore', 'inherit'],
        });
        return () => python.kill('SIGKILL');
      },
    },
  ])(
    'issues no more than the README says ahead of $reader, and ends the stream after streamStallMs',
    async ({ reader, start }) => {
      const issued = await issuedAheadOf(start);
      const documented = documentedAhead(reader);
      expect(documented).toBeGreaterThan(0);
      // More than one message: what the client's window takes, not a server setting.
      expect(issued).toBeGreaterThanOrEqual(16_384);
      expect(issued).toBeLessThanOrEqual(documented);
    },
  );
});
