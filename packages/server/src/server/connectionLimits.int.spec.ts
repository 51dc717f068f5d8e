import { connect, type Socket } from 'node:net';
import { silentLogger } from '@vesta/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ProtocolConnection } from '../client/ProtocolConnection.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { Op, HEADER_BYTES, PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import { PingMessage } from '../protocol/PingMessage.js';
import { heldModule } from '../testing/heldModule.js';
import { startIdServer, type IdServerHandle } from './startIdServer.js';
import { rejection } from '@vesta/testkit';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function server(machineId: number, extra: Record<string, unknown>): Promise<IdServerHandle> {
  const s = await startIdServer({
    port: 0,
    stateDir: false,
    logger: silentLogger,
    machineId,
    shutdownGraceMs: 100,
    ...extra,
  });
  cleanup.push(() => s.close());
  return s;
}

async function open(s: IdServerHandle): Promise<ProtocolConnection> {
  const c = await ProtocolConnection.connect(s.address, { requestTimeoutMs: 10_000 });
  cleanup.push(() => c.destroy());
  return c;
}

/** A raw socket recording what the server sends, and how far a trickled write got. */
interface Raw {
  readonly socket: Socket;
  /** Resolves with every byte received once the server has closed the connection. */
  readonly closed: Promise<Buffer>;
}

function raw(port: number): Raw {
  const socket = connect(port, '127.0.0.1');
  cleanup.push(() => socket.destroy());
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  const closed = new Promise<Buffer>((resolve) =>
    socket.once('close', () => resolve(Buffer.concat(chunks))),
  );
  return { socket, closed };
}

/** Writes one byte every `everyMs` until all are sent or the socket closes; resolves with the count sent. */
async function trickle(socket: Socket, bytes: Buffer, everyMs: number): Promise<number> {
  let sent = 0;
  while (sent < bytes.length && !socket.destroyed && socket.writable) {
    socket.write(bytes.subarray(sent, sent + 1));
    sent++;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return sent;
}

/** The frames of a byte stream, as [request id, op, payload]. */
function frames(bytes: Buffer): [number, number, Buffer][] {
  const out: [number, number, Buffer][] = [];
  for (let at = 0; at + 4 <= bytes.length;) {
    const end = at + 4 + bytes.readUInt32BE(at);
    out.push([
      bytes.readUInt32BE(at + 4),
      bytes[at + 8] as number,
      bytes.subarray(at + HEADER_BYTES, end),
    ]);
    at = end;
  }
  return out;
}

const hello = HelloMessage.encode(1, { protocolVersion: PROTOCOL_VERSION, token: undefined });

describe('the id server at maxConnections', () => {
  it('closes the connection idle the longest to make room for a new one', async () => {
    const s = await server(1021, { maxConnections: 3 });
    const a = await open(s);
    const b = await open(s);
    const c = await open(s);
    // a is used after b and c connected: b is now the one idle the longest.
    await a.ping();
    const bClosed = new Promise<void>((resolve) => b.once('close', () => resolve()));
    let bGoaway = false;
    b.once('goaway', () => {
      bGoaway = true;
    });
    const d = await open(s);
    await bClosed;
    expect(bGoaway).toBe(true);
    for (const live of [a, c, d])
      expect((await live.ping(Buffer.from('up'))).toString()).toBe('up');
    expect(s.connections).toBe(3);
  });

  it('refuses a new connection with OVERLOADED only when every connection has a request in flight', async () => {
    const held = heldModule();
    const s = await server(1022, { maxConnections: 2, modules: [held.module] });
    cleanup.push(() => held.release());
    const a = await open(s);
    const b = await open(s);
    const inFlight = [a.generateOne(), b.generate(5)];
    await held.whenWaiting(2);
    const refused = await rejection(ProtocolConnection.connect(s.address));
    expect(refused.code).toBe('OVERLOADED');
    expect(s.connections).toBe(2);
    held.release();
    for (const r of await Promise.allSettled(inFlight)) {
      expect(r).toMatchObject({ status: 'rejected', reason: { code: 'OVERLOADED' } });
    }
    // Idle again: a newcomer now makes room instead of being refused.
    const c = await open(s);
    expect((await c.ping()).length).toBe(0);
    expect(s.connections).toBe(2);
  });
});

describe('the id server timeouts', () => {
  it('closes a connection that sends no hello with TIMEOUT', async () => {
    const s = await server(1023, { handshakeTimeoutMs: 200 });
    const got = frames(await raw(s.address.port).closed);
    expect(got).toHaveLength(1);
    expect(got[0]?.[1]).toBe(Op.ERROR);
    expect(got[0]?.[2].readUInt16BE(0)).toBe(22);
  });

  it('closes a connection trickling its hello byte by byte with TIMEOUT, before the hello is whole', async () => {
    const s = await server(1023, { handshakeTimeoutMs: 300 });
    const r = raw(s.address.port);
    const slowHello = HelloMessage.encode(1, {
      protocolVersion: PROTOCOL_VERSION,
      token: 'x'.repeat(200),
    });
    const sent = trickle(r.socket, slowHello, 20);
    const got = frames(await r.closed);
    expect(await sent).toBeLessThan(slowHello.length);
    expect(got.map(([, op, payload]) => [op, payload.readUInt16BE(0)])).toEqual([[Op.ERROR, 22]]);
  });

  it('closes a handshaken connection trickling a frame slower than the idle timeout, with PROTOCOL_ERROR', async () => {
    const s = await server(1023, { idleTimeoutMs: 300 });
    const r = raw(s.address.port);
    r.socket.write(hello);
    const ping = PingMessage.encodeRequest(2, Buffer.alloc(64, 7));
    // Each byte comes well within the idle timeout, the whole frame takes far longer.
    const sent = trickle(r.socket, ping, 50);
    const got = frames(await r.closed);
    expect(await sent).toBeLessThan(ping.length);
    expect(got.map(([id, op]) => [id, op])).toEqual([
      [1, Op.HELLO | 0x80],
      [0, Op.ERROR],
    ]);
    expect(got[1]?.[2].readUInt16BE(0)).toBe(20);
  });

  it('closes a handshaken connection that goes silent after the idle timeout', async () => {
    const s = await server(1023, { idleTimeoutMs: 200 });
    const r = raw(s.address.port);
    r.socket.write(hello);
    const got = frames(await r.closed);
    expect(got.map(([id, op]) => [id, op])).toEqual([[1, Op.HELLO | 0x80]]);
  });
});
