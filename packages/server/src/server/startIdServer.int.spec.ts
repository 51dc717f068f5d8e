import { connect } from 'node:net';
import { ERROR_CODES, silentLogger, TOKENS } from '@vesta/core';
import { RunningParts } from '@vesta/core/kit';
import { ContainerModule } from 'inversify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtocolConnection } from '../client/ProtocolConnection.js';
import { GenerateMessage } from '../protocol/GenerateMessage.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { Op, HEADER_BYTES, PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import { startIdServer, type IdServerHandle } from './startIdServer.js';
import { rejection } from '@vesta/testkit';

const base = { port: 0, stateDir: false, logger: silentLogger } as const;

describe('startIdServer', () => {
  let server: IdServerHandle;
  let conn: ProtocolConnection;

  beforeAll(async () => {
    server = await startIdServer({ ...base, machineId: 1010, maxBatch: 1000, metricsPort: 0 });
    conn = await ProtocolConnection.connect(server.address);
  });
  afterAll(async () => {
    await conn.close();
    await server.close();
  });

  it('announces its layout, epoch, machine id and genMethod 1 in the handshake', () => {
    expect(conn.welcome).toMatchObject({
      protocolVersion: PROTOCOL_VERSION,
      machine: 1010,
      genMethod: 1,
      type: 0,
      version: 0,
      epochMs: Date.parse('2025-01-01T00:00:00Z'),
      maxBatch: 1000,
      layout: {
        machineBits: 10,
        seqBits: 20,
        timeBits: 30,
        genMethodBits: 2,
        typeBits: 1,
        versionBits: 1,
      },
    });
  });

  it('generates one id and batches of strictly increasing ids of this machine', async () => {
    const one = await conn.generateOne();
    const batch = await conn.generate(1000);
    expect(batch).toHaveLength(1000);
    for (let i = 1; i < batch.length; i++)
      expect(batch[i] as bigint).toBeGreaterThan(batch[i - 1] as bigint);
    expect(batch[0] as bigint).toBeGreaterThan(one);
    expect(server.service.expId(one)).toMatchObject({ machine: 1010, genMethod: 1 });
  });

  it('answers 64 requests in flight on one connection, each with its own ids', async () => {
    const answers = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        i % 2 === 0 ? conn.generate(i + 1) : conn.generateOne().then((id) => [id]),
      ),
    );
    answers.forEach((ids, i) => expect(ids).toHaveLength(i % 2 === 0 ? i + 1 : 1));
    const all = answers.flat();
    expect(new Set(all).size).toBe(all.length);
  });

  it('decodes, makes and translates times like the id service', async () => {
    const id = await conn.generateOne();
    expect(await conn.decode(id)).toEqual(server.service.expId(id));
    const made = await conn.make({ time: 12345, seq: 6 });
    expect(made).toBe(server.service.makeId({ time: 12345, seq: 6 }));
    expect(
      await conn.make({ time: 1, seq: 2, machine: 3, genMethod: 0, type: 1, version: 0 }),
    ).toBe(
      server.service.makeId({ time: 1, seq: 2, machine: 3, genMethod: 0, type: 1, version: 0 }),
    );
    expect(await conn.transTime(60)).toEqual(new Date('2025-01-01T00:01:00Z'));
    expect(await conn.transTime(60, 1)).toEqual(new Date('2025-01-01T00:00:00.060Z'));
    expect(await conn.info()).toMatchObject({
      machine: 1010,
      genMethod: 1,
      typeName: 'max-peak',
      maxBatch: 1000,
    });
    expect((await conn.ping(Buffer.from('hello'))).toString()).toBe('hello');
  });

  it('decodes an id above 2^63 without rounding it', async () => {
    const id = (1n << 63n) | 5n;
    expect(await conn.decode(id)).toMatchObject({ version: 1, machine: 5 });
  });

  it('answers bad arguments with the code and keeps the connection open', async () => {
    expect((await rejection(conn.generate(1001))).code).toBe('INVALID_ARGUMENT');
    expect((await rejection(conn.generate(0))).code).toBe('INVALID_ARGUMENT');
    expect((await rejection(conn.make({ time: 1, seq: 1 << 20 }))).code).toBe('INVALID_ARGUMENT');
    expect((await rejection(conn.transTime(2 ** 30))).code).toBe('INVALID_ARGUMENT');
    expect(await conn.generateOne()).toBeTypeOf('bigint');
  });

  it('serves /metrics and /health with the shared metric names', async () => {
    const port = server.metricsAddress?.port;
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^vesta_ids_issued_total [1-9]\d*$/m);
    expect(metrics).toMatch(/^vesta_requests_total\{route="generate",status="200"\} [1-9]/m);
    expect(metrics).toMatch(/^vesta_requests_total\{route="generate",status="400"\} [1-9]/m);
    expect(metrics).toMatch(/^vesta_tcp_connections 1$/m);
    const unknown = await fetch(`http://127.0.0.1:${port}/nope`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const post = await fetch(`http://127.0.0.1:${port}/health`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(await post.json()).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
  });

  it('counts every id it answers with in vesta_ids_issued_total, read at each scrape', async () => {
    const port = server.metricsAddress?.port;
    const scrape = async (): Promise<number> => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return Number(/^vesta_ids_issued_total (\d+)$/m.exec(text)?.[1]);
    };
    const before = await scrape();
    await conn.generate(1000);
    await conn.generateOne();
    expect(await scrape()).toBe(before + 1001);
  });

  it('refuses a client of another protocol version with HANDSHAKE_MISMATCH', async () => {
    const reply = await rawReply(
      server.address.port,
      HelloMessage.encode(1, { protocolVersion: PROTOCOL_VERSION + 1, token: undefined }),
    );
    expect(reply[8]).toBe(Op.ERROR);
    expect(reply.readUInt32BE(4)).toBe(1);
    expect(reply.readUInt16BE(HEADER_BYTES)).toBe(ERROR_CODES.HANDSHAKE_MISMATCH.wire);
  });

  it('closes a connection whose first frame is not a hello, with PROTOCOL_ERROR', async () => {
    const reply = await rawReply(server.address.port, GenerateMessage.encodeRequest(7, 1));
    expect(reply[8]).toBe(Op.ERROR);
    expect(reply.readUInt32BE(4)).toBe(7);
    expect(reply.readUInt16BE(HEADER_BYTES)).toBe(ERROR_CODES.PROTOCOL_ERROR.wire);
  });
});

/** Writes `bytes` on a raw socket and resolves with everything the server sent until it closed. */
async function rawReply(port: number, bytes: Buffer): Promise<Buffer> {
  const socket = connect(port, '127.0.0.1');
  socket.write(bytes);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  await new Promise((resolve) => socket.once('close', resolve));
  return Buffer.concat(chunks);
}

describe('startIdServer with an auth token', () => {
  let server: IdServerHandle;
  beforeAll(async () => {
    server = await startIdServer({ ...base, machineId: 1011, authToken: 's3cret' });
  });
  afterAll(() => server.close());

  it('serves a client that presents the token', async () => {
    const conn = await ProtocolConnection.connect(server.address, { authToken: 's3cret' });
    expect(await conn.generateOne()).toBeTypeOf('bigint');
    await conn.close();
  });

  it.each([
    ['no token', undefined],
    ['a wrong token', 's3creT'],
    ['a longer token', 's3cret!'],
  ])('refuses a client with %s with UNAUTHORIZED', async (_name, token) => {
    const error = await rejection(
      ProtocolConnection.connect(server.address, token === undefined ? {} : { authToken: token }),
    );
    expect(error.code).toBe('UNAUTHORIZED');
  });
});

describe('startIdServer.close', () => {
  it('answers requests in flight, sends GOAWAY, then refuses new connections', async () => {
    const server = await startIdServer({ ...base, machineId: 1012 });
    const conn = await ProtocolConnection.connect(server.address);
    let goaway = false;
    conn.on('goaway', () => {
      goaway = true;
    });
    const inFlight = Promise.all(Array.from({ length: 32 }, () => conn.generate(100)));
    await server.close();
    expect((await inFlight).flat()).toHaveLength(3200);
    expect(goaway).toBe(true);
    expect((await rejection(ProtocolConnection.connect(server.address))).code).toBe(
      'NO_SERVER_AVAILABLE',
    );
    expect(server.service.health()).toMatchObject({ ok: false, code: 'SERVICE_CLOSED' });
  });

  it('refuses a machine id outside 924-1023', async () => {
    expect((await rejection(startIdServer({ ...base, machineId: 5 }))).code).toBe(
      'MACHINE_ID_OUT_OF_RANGE',
    );
  });
});

describe('startIdServer on an address it cannot take', () => {
  it('rejects with LISTEN_FAILED, naming the address, when its port is in use', async () => {
    const first = await startIdServer({ ...base, machineId: 1014 });
    try {
      const error = await rejection(
        startIdServer({ ...base, machineId: 1015, port: first.address.port }),
      );
      expect(error.code).toBe('LISTEN_FAILED');
      expect(error.message).toContain(`127.0.0.1:${first.address.port}`);
      expect(error.details).toMatchObject({ port: first.address.port, errno: 'EADDRINUSE' });
    } finally {
      await first.close();
    }
  });

  it('rejects with LISTEN_FAILED when the metrics port is in use', async () => {
    const first = await startIdServer({ ...base, machineId: 1014, metricsPort: 0 });
    try {
      const metricsPort = first.metricsAddress?.port as number;
      const error = await rejection(startIdServer({ ...base, machineId: 1015, metricsPort }));
      expect(error.code).toBe('LISTEN_FAILED');
      expect(error.message).toContain(`127.0.0.1:${metricsPort}`);
    } finally {
      await first.close();
    }
  });
});

describe('startIdServer in a process container with a coordinator module shared', () => {
  /** The process's container with a coordinator's module shared: leases 1020, 1021, ... */
  async function sharing(): Promise<RunningParts> {
    let next = 1020;
    const parts = new RunningParts();
    await parts.share(
      new ContainerModule(({ bind }) => {
        bind(TOKENS.MachineIdProvider).toConstantValue({
          acquire: async () => ({ machineId: next++ }),
        });
      }),
    );
    return parts;
  }

  it('refuses a generator of its own layout (its own machine id) beside the shared coordinator, as it does beside the modules option', async () => {
    const names = { clicks: { machineId: 1001, type: 'min-granularity' as const } };
    const error = await rejection(
      startIdServer({ ...base, generators: { names } }, await sharing()),
    );
    expect(error.code).toBe('INVALID_OPTIONS');
  });
});
