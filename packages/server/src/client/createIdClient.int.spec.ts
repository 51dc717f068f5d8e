import { createServer, Socket, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ID_FORMS, silentLogger, VestaError } from '@vesta/core';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { spawnServer } from '../testing/spawnServer.js';
import { createIdClient } from './IdClient.js';
import { rejection } from '@vesta/testkit';
import { useServerFixtures } from '../testing/useServerFixtures.js';

const { server, client, cleanup } = useServerFixtures();

/** A server that accepts connections and never answers. */
async function blackHole(): Promise<{ server: Server; url: string }> {
  const sockets = new Set<Socket>();
  const s = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  cleanup.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => s.close(resolve));
  });
  const port = (s.address() as { port: number }).port;
  return { server: s, url: `127.0.0.1:${port}` };
}

describe('createIdClient', () => {
  it('issues ids from every server and answers expId, makeId, transTime and info locally', async () => {
    const a = await server(1001);
    const b = await server(1002);
    const ids = await client({ servers: [a.url, b.url] });
    const got = [
      ...(await Promise.all(Array.from({ length: 20 }, () => ids.genId()))),
      ...(await ids.genIds(500)),
    ];
    expect(new Set(got).size).toBe(520);
    const machines = new Set(got.map((id) => ids.expId(id).machine));
    expect(machines).toEqual(new Set([1001, 1002]));
    const id = got[0] as bigint;
    expect(ids.expId(id)).toEqual(a.service.expId(id));
    expect(ids.expId(String(id))).toEqual(a.service.expId(id));
    expect(ids.makeId({ time: 10, seq: 3, machine: 1001 })).toBe(
      a.service.makeId({ time: 10, seq: 3 }),
    );
    expect(ids.transTime(90)).toEqual(a.service.transTime(90));
    expect(ids.info()).toMatchObject({
      typeName: 'max-peak',
      epochMs: a.service.info().epochMs,
      mode: 'servers',
    });
    expect(ids.info().servers.map((s) => s.state)).toEqual(['up', 'up']);
    expect(ids.health()).toEqual({ ok: true });
    expect((await rejection(ids.genIds(0))).code).toBe('INVALID_ARGUMENT');
    expect(() => ids.expId('12x')).toThrow(VestaError);
    for (const form of ID_FORMS) {
      const text = ids.formatId(id, form);
      expect(text).toBe(a.service.formatId(id, form));
      expect(ids.parseId(text, form)).toBe(id);
      expect(ids.expId(text, form)).toEqual(a.service.expId(id));
    }
    expect(() => ids.parseId('01RX5ZW000007')).toThrow(VestaError);
  });

  it('refuses a server whose epoch differs from the others', async () => {
    const a = await server(1003);
    const b = await server(1004, { epoch: '2024-01-01T00:00:00Z' });
    const refused: string[] = [];
    const ids = await createIdClient({ servers: [a.url, b.url], logger: silentLogger });
    cleanup.push(() => ids.close());
    ids.on('serverRefused', (e) => refused.push(e.server));
    expect(
      ids
        .info()
        .servers.map((s) => s.state)
        .sort(),
    ).toEqual(['refused', 'up']);
    const got = await Promise.all(Array.from({ length: 10 }, () => ids.genId()));
    expect(new Set(got.map((id) => ids.expId(id).machine)).size).toBe(1);
  });

  it('refuses a second server issuing under the same machine id', async () => {
    const a = await server(1005);
    // The host lock refuses a second server on one id here; on another host only the client sees it.
    const b = await server(1005, { hostLockScope: 'another-host' });
    const ids = await client({ servers: [a.url, b.url] });
    expect(ids.info().servers.filter((s) => s.state === 'refused')).toHaveLength(1);
  });

  it('refuses servers of another type than the one expected', async () => {
    const a = await server(1006, { type: 'min-granularity' });
    expect(
      (
        await rejection(
          createIdClient({ servers: [a.url], type: 'max-peak', logger: silentLogger }),
        )
      ).code,
    ).toBe('NO_SERVER_AVAILABLE');
  });

  it('authenticates with the token and cannot start without it', async () => {
    const a = await server(1007, { authToken: 'tok' });
    const ids = await client({ servers: [a.url], authToken: 'tok' });
    expect(await ids.genId()).toBeTypeOf('bigint');
    expect((await rejection(createIdClient({ servers: [a.url], logger: silentLogger }))).code).toBe(
      'NO_SERVER_AVAILABLE',
    );
  });

  it('retries on the other server when one accepts but never answers', async () => {
    const hole = await blackHole();
    const a = await server(1008);
    // The black hole never completes a handshake; start with the good server only, then swap it in.
    const ids = await client({
      servers: [a.url, hole.url],
      requestTimeoutMs: 200,
      connectTimeoutMs: 200,
      probeIntervalMs: 50,
    });
    expect(ids.info().servers[1]?.state).not.toBe('up');
    const got = await Promise.all(Array.from({ length: 50 }, () => ids.genId()));
    expect(new Set(got).size).toBe(50);
  });

  it('fails with NO_SERVER_AVAILABLE caused by TIMEOUT when its only server stops answering', async () => {
    const sockets: Socket[] = [];
    const a = await server(1009);
    // A proxy that forwards the handshake, then swallows everything.
    const proxy = createServer((inbound) => {
      sockets.push(inbound);
      const outbound = new Socket();
      sockets.push(outbound);
      outbound.connect(a.address.port, '127.0.0.1');
      let forwarded = 0;
      inbound.on('data', (chunk: Buffer) => {
        if (forwarded++ === 0) outbound.write(chunk);
      });
      outbound.on('data', (chunk: Buffer) => inbound.write(chunk));
      inbound.on('error', () => undefined);
      outbound.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    cleanup.push(async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    });
    const ids = await client({
      servers: [`127.0.0.1:${(proxy.address() as { port: number }).port}`],
      requestTimeoutMs: 150,
    });
    const error = await rejection(ids.genId());
    expect(error.code).toBe('NO_SERVER_AVAILABLE');
    expect((error.cause as VestaError).code).toBe('TIMEOUT');
  });

  it('fails with NO_SERVER_AVAILABLE when every server is down and no fallback is set', async () => {
    const a = await server(1010);
    const ids = await client({ servers: [a.url], probeIntervalMs: 10_000 });
    await a.close();
    expect((await rejection(ids.genId())).code).toBe('NO_SERVER_AVAILABLE');
    expect(ids.health()).toMatchObject({ ok: false, code: 'NO_SERVER_AVAILABLE' });
  });

  it('has marked a server down by the time its serverDown listeners run', async () => {
    const a = await server(1011);
    const ids = await client({ servers: [a.url], probeIntervalMs: 10_000 });
    await ids.genId();
    const seen = new Promise((resolve) => ids.once('serverDown', () => resolve(ids.health())));
    await a.close();
    expect(await seen).toMatchObject({ ok: false, code: 'NO_SERVER_AVAILABLE' });
  });

  it('cannot start when no server answers and no fallback is set', async () => {
    const hole = await blackHole();
    await hole.server.close();
    expect(
      (await rejection(createIdClient({ servers: [hole.url], logger: silentLogger }))).code,
    ).toBe('NO_SERVER_AVAILABLE');
  });

  it('issues locally with genMethod 0 while every server is down, counts it, and goes back when one returns', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'vesta-fallback-'));
    // Runs last (cleanup runs in reverse), after the servers using it are gone.
    cleanup.push(async () => rmSync(stateDir, { recursive: true, force: true }));
    const registry = new Registry();
    const first = await spawnServer({ port: 0, machineId: 1020, stateDir });
    cleanup.push(async () => {
      first.child.kill('SIGKILL');
      await first.exited;
    });
    const ids = await client({
      servers: [`127.0.0.1:${first.port}`],
      fallback: { machineId: 42 },
      registry,
      probeIntervalMs: 20,
      maxProbeIntervalMs: 100,
    });
    const events: string[] = [];
    ids.on('fallback', () => events.push('fallback'));
    ids.on('recovered', () => events.push('recovered'));
    const before = await ids.genId();
    first.child.kill('SIGKILL');
    await first.exited;
    const local = await ids.genIds(10);
    expect(local.map((id) => ids.expId(id).genMethod)).toEqual(Array(10).fill(0));
    expect(ids.expId(local[0] as bigint).machine).toBe(42);
    expect(ids.info().mode).toBe('fallback');
    expect(await registry.getSingleMetricAsString('vesta_client_fallback_ids_total')).toMatch(
      / 10$/m,
    );

    const again = await spawnServer({ port: first.port, machineId: 1020, stateDir });
    cleanup.push(async () => {
      again.child.kill('SIGKILL');
      await again.exited;
    });
    let back: bigint | undefined;
    for (let i = 0; i < 200 && back === undefined; i++) {
      const id = await ids.genId();
      if (ids.expId(id).genMethod === 1) back = id;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(back).toBeDefined();
    expect(back as bigint).toBeGreaterThan(before);
    expect(events).toEqual(['fallback', 'recovered']);
  });

  it('starts in fallback when no server answers yet', async () => {
    const hole = await blackHole();
    await hole.server.close();
    const ids = await client({
      servers: [hole.url],
      fallback: { machineId: 43 },
      type: 'min-granularity',
    });
    expect(ids.expId(await ids.genId())).toMatchObject({ genMethod: 0, machine: 43, type: 1 });
  });

  it('rejects bad options with INVALID_OPTIONS', async () => {
    for (const bad of [
      { servers: [] },
      { servers: ['nohost'] },
      { servers: ['a:1', 'a:1'] },
      { servers: ['a:1'], requestTimeoutMs: 0 },
      { servers: ['a:1'], colour: 1 },
      { servers: ['a:1'], prefetch: 'yes' },
      { servers: ['a:1'], prefetch: { maxAgeMs: 0 } },
      { servers: ['a:1'], prefetch: { lowWaterRatio: 1.5 } },
      { servers: ['a:1'], prefetch: { maxBatch: 100, colour: 1 } },
    ]) {
      expect((await rejection(createIdClient(bad as never))).code).toBe('INVALID_OPTIONS');
    }
  });
});
