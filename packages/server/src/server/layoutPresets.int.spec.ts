import { connect } from 'node:net';
import { ERROR_CODES, LAYOUT_PRESETS, silentLogger } from '@vesta/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  issuableInstant,
  ORIGINAL_ID_FORMULAS,
  presetServerOptions,
  rejection,
} from '@vesta/testkit';
import { createIdClient, type IdClient } from '../client/IdClient.js';
import { ProtocolConnection } from '../client/ProtocolConnection.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { Op, RESPONSE_BIT, HEADER_BYTES } from '../protocol/protocolConstants.js';
import { WelcomeMessage } from '../protocol/WelcomeMessage.js';
import { startIdServer, type IdServerHandle } from './startIdServer.js';

type Preset = keyof typeof ORIGINAL_ID_FORMULAS;
const PRESETS = Object.keys(ORIGINAL_ID_FORMULAS) as Preset[];

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function serve(preset: Preset, extra: Record<string, unknown> = {}): Promise<IdServerHandle> {
  const server = await startIdServer({ ...presetServerOptions(preset), ...extra });
  open.push(server);
  return server;
}

/** The first bytes a server answers to a protocol 1 hello, up to its closing or 200 ms of quiet. */
async function hello(port: number, protocolVersion = 1): Promise<Buffer> {
  const socket = connect(port, '127.0.0.1');
  socket.write(HelloMessage.encode(1, { protocolVersion, token: undefined }));
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve) => {
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const all = Buffer.concat(chunks);
      if (all.length >= 4 && all.length >= 4 + all.readUInt32BE(0)) resolve();
    });
    socket.once('close', () => resolve());
  });
  socket.destroy();
  return Buffer.concat(chunks);
}

describe('the central server with a layout preset', () => {
  it.each(PRESETS)(
    'issues %s ids bit for bit as the original formula does, through the client',
    async (preset) => {
      const server = await serve(preset);
      const machine = server.service.info().machine;
      const ids: IdClient = await createIdClient({
        servers: [`127.0.0.1:${server.address.port}`],
        layout: preset,
        logger: silentLogger,
      });
      open.push(ids);
      const at = issuableInstant(preset);
      const original = ORIGINAL_ID_FORMULAS[preset];
      expect(await ids.genId()).toBe(original(at, machine, 0));
      expect(await ids.genIds(3)).toEqual([1, 2, 3].map((seq) => original(at, machine, seq)));
      expect(ids.expId(original(at, machine, 3))).toMatchObject({ machine, seq: 3, genMethod: 0 });
      expect(ids.info()).toMatchObject({ preset, machine, genMethod: 0 });
    },
  );

  it('carries the full layout in the protocol 4 welcome, and the same to protocol 3 and 2 clients', async () => {
    const server = await serve('sonyflake');
    const conn = await ProtocolConnection.connect(server.address);
    open.push(conn);
    expect(conn.welcome.layoutSpec).toEqual(LAYOUT_PRESETS.sonyflake.layout.spec);
    expect(conn.welcome).toMatchObject({ protocolVersion: 4, genMethod: 0, machine: 58_983 });
    for (const version of [3, 2]) {
      const older = await hello(server.address.port, version);
      expect(older[8]).toBe(Op.HELLO | RESPONSE_BIT);
      const welcome = WelcomeMessage.decode(older.subarray(HEADER_BYTES));
      expect(welcome).toEqual({ ...conn.welcome, protocolVersion: version });
    }
  });

  it('refuses a protocol 1 client with HANDSHAKE_MISMATCH: its welcome cannot carry the layout', async () => {
    const server = await serve('leaf');
    const reply = await hello(server.address.port);
    expect(reply[8]).toBe(Op.ERROR);
    expect(reply.readUInt16BE(HEADER_BYTES)).toBe(ERROR_CODES.HANDSHAKE_MISMATCH.wire);
  });

  it('still answers a protocol 1 client of a Vesta layout with the 35-byte welcome', async () => {
    const server = await startIdServer({
      port: 0,
      stateDir: false,
      logger: silentLogger,
      machineId: 1020,
    });
    open.push(server);
    const reply = await hello(server.address.port);
    expect(reply[8]).toBe(Op.HELLO | 0x80);
    const welcome = WelcomeMessage.decode(reply.subarray(HEADER_BYTES));
    expect(reply.length).toBe(HEADER_BYTES + 35);
    expect(welcome).toMatchObject({ protocolVersion: 1, machine: 1020, genMethod: 1 });
  });

  it('refuses a server of another layout than the client expects with HANDSHAKE_MISMATCH', async () => {
    const server = await serve('twitter');
    const error = await rejection(
      createIdClient({
        servers: [`127.0.0.1:${server.address.port}`],
        layout: 'discord',
        logger: silentLogger,
      }),
    );
    expect(error.code).toBe('NO_SERVER_AVAILABLE');
  });

  it('refuses a machine id outside the top tenth of the machine field (MACHINE_ID_OUT_OF_RANGE)', async () => {
    const error = await rejection(serve('twitter', { machineId: 921 }));
    expect(error.code).toBe('MACHINE_ID_OUT_OF_RANGE');
  });
});
