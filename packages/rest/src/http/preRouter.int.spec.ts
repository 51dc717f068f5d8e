import { silentLogger } from '@vesta/core';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { createVestaMetrics } from '@vesta/metrics';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRestServer, type RestServer } from '../index.js';

const TOKEN = 'pre-router-test-token';
const AUTH = `Bearer ${TOKEN}`;

interface RawAnswer {
  /** Status line and headers exactly as sent, but the value of `Date`. */
  readonly head: string;
  /** The body with its chunked framing removed. */
  readonly body: string;
}

/** One request over a bare socket; the answer's bytes as they came. */
function raw(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const head = text.slice(0, split).replace(/^Date: .*$/im, 'Date: <date>');
      let rest = text.slice(split + 4);
      let body = rest;
      if (/^Transfer-Encoding: chunked$/im.test(head)) {
        body = '';
        for (;;) {
          const eol = rest.indexOf('\r\n');
          const size = Number.parseInt(rest.slice(0, eol), 16);
          if (!(size > 0)) break;
          body += rest.slice(eol + 2, eol + 2 + size);
          rest = rest.slice(eol + 2 + size + 2);
        }
      }
      resolve({ head, body });
    });
  });
}

/** Ids vary from request to request; everything else must not. */
function withoutIds(answer: RawAnswer): RawAnswer {
  return { head: answer.head, body: answer.body.replace(/"[0-9]{10,20}"/g, '"<id>"') };
}

/** Metric values vary from scrape to scrape; names, labels and order must not. */
function withoutValues(answer: RawAnswer): RawAnswer {
  return { head: answer.head, body: answer.body.replace(/ [^ \n]+$/gm, ' <value>') };
}

let server: RestServer;
let express: Server;
let expressPort: number;
let nowMs = Date.now();

beforeAll(async () => {
  server = await startRestServer({
    stateDir: false,
    logger: silentLogger,
    machineId: 1010,
    port: 0,
    authToken: TOKEN,
    // A frozen clock keeps the bodies of 503s (how far behind) the same on both paths.
    clock: () => nowMs,
    metrics: createVestaMetrics({ collectDefaults: false }),
  });
  // The express app over the very same handlers, service and metrics, without the pre-router.
  express = createServer(server.app);
  await new Promise<void>((resolve) => express.listen(0, '127.0.0.1', resolve));
  expressPort = (express.address() as { port: number }).port;
});

afterAll(async () => {
  express.closeAllConnections();
  await new Promise((resolve) => express.close(resolve));
  await server.close();
});

/** The same request through the pre-router (the standalone server) and through express. */
async function both(
  method: string,
  path: string,
  headers: Record<string, string> = { authorization: AUTH },
): Promise<{ preRouted: RawAnswer; viaExpress: RawAnswer }> {
  const preRouted = await raw(server.port, method, path, headers);
  const viaExpress = await raw(expressPort, method, path, headers);
  return { preRouted, viaExpress };
}

describe('the pre-router of the standalone REST server', () => {
  it.each([
    ['GET', '/genids?count=3', 200],
    ['GET', '/expid?id=2369919850714760191', 200],
    ['GET', '/transtime?time=60&type=min-granularity', 200],
    ['GET', '/makeid?time=1&seq=2&machine=5', 200],
    ['GET', '/info', 200],
    ['GET', '/health', 200],
    ['GET', '/openapi.json', 200],
    ['HEAD', '/info', 200],
    ['GET', '/genid?', 200],
    ['GET', '/genids?count=0', 400],
    ['GET', '/genids?count=5&count=6', 400],
    ['GET', '/genid?count=1', 400],
    ['GET', '/makeid?time=1&seq=2&genmethod=1', 400],
    ['GET', '/expid?id=%ZZ', 400],
    ['GET', '/expid?id=18446744073709551616', 400],
    ['GET', `/expid?id=${'1'.repeat(2000)}`, 413],
  ])('answers %s %s byte for byte as the express route does (%i)', async (method, path, status) => {
    const { preRouted, viaExpress } = await both(method, path);
    expect(preRouted.head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(withoutIds(preRouted)).toEqual(withoutIds(viaExpress));
  });

  it('answers GET and HEAD /genid byte for byte as the express route does, with fresh ids', async () => {
    for (const method of ['GET', 'HEAD']) {
      const { preRouted, viaExpress } = await both(method, '/genid');
      expect(preRouted.head).toMatch(/^HTTP\/1\.1 200 /);
      expect(withoutIds(preRouted)).toEqual(withoutIds(viaExpress));
      if (method === 'GET') expect(preRouted.body).not.toBe(viaExpress.body);
    }
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: `${AUTH}x` }],
    ['another scheme', { authorization: 'Basic abc' }],
  ])('answers 401 byte for byte as the express route does for %s', async (_case, headers) => {
    for (const path of ['/genid', '/genids?count=2', '/metrics', '/openapi.json']) {
      const { preRouted, viaExpress } = await both('GET', path, headers);
      expect(preRouted.head).toMatch(/^HTTP\/1\.1 401 /);
      expect(preRouted).toEqual(viaExpress);
    }
    const health = await both('GET', '/health', headers);
    expect(health.preRouted.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(health.preRouted).toEqual(health.viaExpress);
  });

  it('answers 503 byte for byte as the express route does when the clock is behind', async () => {
    const issued = await both('GET', '/genid');
    expect(issued.preRouted.head).toMatch(/^HTTP\/1\.1 200 /);
    const now = nowMs;
    nowMs = now - 5_000;
    try {
      for (const path of ['/genid', '/genids?count=2', '/health']) {
        const { preRouted, viaExpress } = await both('GET', path);
        expect(preRouted.head).toMatch(/^HTTP\/1\.1 503 /);
        expect(preRouted.body).toContain('"code":"CLOCK_MOVED_BACKWARDS"');
        expect(preRouted).toEqual(viaExpress);
      }
    } finally {
      nowMs = now;
    }
  });

  it('exports the same metrics text, counting the requests of both paths in one set of series', async () => {
    await both('GET', '/metrics');
    const { preRouted, viaExpress } = await both('GET', '/metrics');
    expect(preRouted.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(withoutValues(preRouted)).toEqual(withoutValues(viaExpress));
    expect(preRouted.body).toMatch(/^vesta_requests_total\{route="\/genid",status="200"\} [1-9]/m);
    expect(preRouted.body).toMatch(/^vesta_requests_total\{route="\/genid",status="401"\} [1-9]/m);
  });

  it('dispatches GET and HEAD of the exact routes without express, and hands everything else to it', async () => {
    // express's app function hands every request to app.handle (not in its typings).
    const app = server.app as unknown as { handle: (...args: unknown[]) => void };
    const handle = vi.spyOn(app, 'handle');
    try {
      for (const path of [
        '/genid',
        '/genids?count=2',
        '/health',
        '/metrics',
        '/info?x=1',
        '/',
        '/docs',
        '/assets/page.js',
      ]) {
        await raw(server.port, 'GET', path, { authorization: AUTH });
        await raw(server.port, 'HEAD', path, { authorization: AUTH });
      }
      expect(handle).not.toHaveBeenCalled();
      const handedOver = [
        ['POST', '/genid', 405],
        ['DELETE', '/health', 405],
        ['GET', '/genid/', 200],
        ['GET', '/GENID', 200],
        ['GET', '//genid', 404],
        ['GET', '/nope', 404],
        ['GET', '/docs/', 404],
        ['GET', '/DOCS', 404],
        ['GET', '/nope/', 404],
        ['GET', 'http://127.0.0.1/genid', 200],
      ] as const;
      for (const [method, path, status] of handedOver) {
        const { preRouted, viaExpress } = await both(method, path);
        expect({ path, head: preRouted.head.slice(0, 12) }).toEqual({
          path,
          head: `HTTP/1.1 ${status}`,
        });
        expect(withoutIds(preRouted)).toEqual(withoutIds(viaExpress));
      }
      expect(handle).toHaveBeenCalledTimes(handedOver.length * 2);
    } finally {
      handle.mockRestore();
    }
  });
});
