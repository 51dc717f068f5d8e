import { silentLogger } from '@vesta/core';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startRestServer, type RestServer } from './index.js';

/**
 * The REST server's two 503 OVERLOADED answers, each with its own test: a request beyond
 * `maxRequestsInFlight`, and a newcomer when every one of `maxConnections` is being served.
 * A connection is kept "being served" for as long as the test likes by asking for a batch far
 * larger than the socket buffers and then not reading: its answer cannot be flushed.
 */
const BIG_BATCH = 1_000_000;

const opened: Socket[] = [];
const servers: RestServer[] = [];

afterEach(async () => {
  for (const socket of opened.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await server.close();
});

async function serverWith(limits: { maxRequestsInFlight?: number; maxConnections?: number }) {
  const server = await startRestServer({
    stateDir: false,
    logger: silentLogger,
    machineId: 1006,
    port: 0,
    maxBatch: BIG_BATCH,
    ...limits,
  });
  servers.push(server);
  return server;
}

/** Opens a connection that asks for a batch it never reads beyond the first bytes. */
async function stuckReader(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  opened.push(socket);
  await new Promise<void>((done, fail) => {
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.write(`GET /genids?count=${BIG_BATCH} HTTP/1.1\r\nHost: ids\r\n\r\n`);
    });
    // The answer has started: from now on it waits to be flushed, and the reader stops.
    socket.once('data', () => {
      socket.pause();
      done();
    });
  });
  return socket;
}

/** Sends one request on a new connection and resolves with all it gets until the close. */
function askOnce(port: number, path: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  opened.push(socket);
  return new Promise((done, fail) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.once('error', fail);
    socket.once('connect', () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ids\r\nConnection: close\r\n\r\n`),
    );
    socket.once('close', () => done(text));
  });
}

/** The error code of an answer's JSON body (sent whole, or as one chunk). */
function codeOf(answer: string): unknown {
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  const json = body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1);
  return (JSON.parse(json) as { error?: { code?: unknown } }).error?.code;
}

describe('the REST server when overloaded', () => {
  it('answers a request beyond maxRequestsInFlight with 503 OVERLOADED, and serves again once the answer in flight is done', async () => {
    const server = await serverWith({ maxRequestsInFlight: 1 });
    const stuck = await stuckReader(server.port);
    const refused = await askOnce(server.port, '/genid');
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused).toMatch(/\r\nRetry-After: \d+\r\n/i);
    expect(codeOf(refused)).toBe('OVERLOADED');
    stuck.destroy();
    await new Promise((done) => stuck.once('close', done));
    // The answer in flight left with its connection: the next request is served.
    let served = '';
    for (let i = 0; i < 50 && !served.startsWith('HTTP/1.1 200'); i++) {
      served = await askOnce(server.port, '/genid');
    }
    expect(served).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('refuses a newcomer with 503 OVERLOADED when every one of maxConnections is being served', async () => {
    const server = await serverWith({ maxConnections: 1 });
    await stuckReader(server.port);
    const refused = await askOnce(server.port, '/genid');
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(codeOf(refused)).toBe('OVERLOADED');
  });
});
