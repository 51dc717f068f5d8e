import { connect } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { rejection } from '@vesta/testkit';
import { GenerateMessage } from '../protocol/GenerateMessage.js';
import { HelloMessage } from '../protocol/HelloMessage.js';
import { PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import { useServerFixtures } from '../testing/useServerFixtures.js';

const { server, client } = useServerFixtures();

const GENERATORS = {
  names: { orders: {}, users: {}, clicks: { machineId: 1011, type: 'min-granularity' as const } },
};

describe('named generators over TCP', () => {
  it('issues ids under each name from every server, unique across names and servers', async () => {
    const a = await server(1001, { generators: GENERATORS });
    const b = await server(1002, {
      generators: {
        ...GENERATORS,
        names: {
          ...GENERATORS.names,
          clicks: { machineId: 1012, type: 'min-granularity' as const },
        },
      },
    });
    const ids = await client({ servers: [a.url, b.url] });
    const orders = ids.generator('orders');
    const clicks = ids.generator('clicks');
    const got = (
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          i % 3 === 0
            ? orders.genIds(100)
            : i % 3 === 1
              ? clicks.genIds(50)
              : ids
                  .generator('users')
                  .genId()
                  .then((id) => [id]),
        ),
      )
    ).flat();
    expect(new Set(got).size).toBe(got.length);
    const machines = new Set(got.map((id) => ids.expId(id).machine));
    expect(machines).toEqual(new Set([1001, 1002, 1011, 1012]));
    const click = await clicks.genId();
    expect(ids.expId(click)).toMatchObject({ type: 1, genMethod: 1 });
    const counted = a.generators.list().find((g) => g.name === 'orders')?.issued ?? 0;
    const countedB = b.generators.list().find((g) => g.name === 'orders')?.issued ?? 0;
    expect(counted + countedB).toBe(14 * 100);
  });

  it('answers UNKNOWN_GENERATOR for a name the server lacks, without trying others or failing over', async () => {
    const a = await server(1003, { generators: GENERATORS });
    const ids = await client({ servers: [a.url], fallback: { machineId: 30 } });
    expect((await rejection(ids.generator('payments').genId())).code).toBe('UNKNOWN_GENERATOR');
    expect(() => ids.generator('bad name')).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(ids.info().mode).toBe('servers');
    expect(typeof (await ids.generator('orders').genId())).toBe('bigint');
  });

  it('closes a connection that sends a key of a bad length, and answers a malformed key with INVALID_ARGUMENT', async () => {
    const a = await server(1004, { generators: GENERATORS });
    const socket = connect(a.address.port, '127.0.0.1');
    await once(socket, 'connect');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.write(HelloMessage.encode(1, { protocolVersion: PROTOCOL_VERSION, token: undefined }));
    // A key whose name is not a valid generator name: an error answer, the connection stays.
    socket.write(GenerateMessage.encodeRequest(2, 1, 'no way'));
    // A key length byte that does not match the payload: PROTOCOL_ERROR, then closed.
    const bad = GenerateMessage.encodeRequest(3, 1, 'orders');
    bad.writeUInt8(60, bad.length - 'orders'.length - 1);
    socket.write(bad);
    await once(socket, 'close');
    const all = Buffer.concat(chunks).toString('latin1');
    expect(all).toContain('a generator name is 1 to 64');
    expect(all).toMatch(/generate payload must be 4 bytes, or 5 \+ a key/);
  });
});
