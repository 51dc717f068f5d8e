import { ID_FORMS, silentLogger, type IdService } from '@vesta/core';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { vestaFastify } from '@vesta/fastify';
import express from 'express';
import Fastify from 'fastify';
import type * as ResponseValidatorModule from 'openapi-response-validator';
import type * as SchemaValidatorModule from 'openapi-schema-validator';
import { createSegmentService, MemorySegmentStore } from '@vesta/segment';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestApp, createRestIdService, startRestServer } from './index.js';

// Both are CommonJS with an `exports.default` class: required, so types and runtime agree.
const require = createRequire(import.meta.url);
const { default: OpenAPIResponseValidator } = require('openapi-response-validator') as {
  default: new (
    args: ResponseValidatorModule.OpenAPIResponseValidatorArgs,
  ) => ResponseValidatorModule.IOpenAPIResponseValidator;
};
const { default: OpenAPISchemaValidator } = require('openapi-schema-validator') as {
  default: new (
    args: SchemaValidatorModule.OpenAPISchemaValidatorArgs,
  ) => SchemaValidatorModule.IOpenAPISchemaValidator;
};

const TOKEN = 'contract-test-token';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A server answering the REST API at its root. */
interface Target {
  readonly port: number;
  close(): Promise<void>;
}

/** What every target is built with: the same app options, the segment store, a clock to step back. */
interface TargetOptions {
  readonly machineId: number;
  readonly clock: () => number;
  readonly segments: ReturnType<typeof createSegmentService>;
}

const APP_OPTIONS = {
  authToken: TOKEN,
  scrambleKey: 'contract-test-scramble-key',
  logger: silentLogger,
} as const;

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Closes a node:http server and waits for it. */
function closed(server: Server): Promise<void> {
  return new Promise((resolve, reject) =>
    server.close((error) => (error ? reject(error) : resolve())),
  );
}

/**
 * The servers the contract holds for, each answering the API at its root: the standalone server,
 * `createRestApp` mounted in a user's express app, and `vestaFastify` registered in a fastify app.
 */
const TARGETS: [string, (options: TargetOptions) => Promise<Target>][] = [
  [
    'the standalone server (startRestServer)',
    async ({ machineId, clock, segments }) => {
      const server = await startRestServer({
        ...APP_OPTIONS,
        stateDir: false,
        machineId,
        port: 0,
        clock,
        segments,
      });
      return { port: server.port, close: () => server.close() };
    },
  ],
  [
    'createRestApp in an express app',
    async ({ machineId, clock, segments }) => {
      const service = await createRestIdService({ machineId, clock, logger: silentLogger });
      const app = express();
      app.use(createRestApp({ ...APP_OPTIONS, service, segments }));
      const server = createServer(app);
      const port = await listening(server);
      return { port, close: () => closed(server).then(() => service.close()) };
    },
  ],
  [
    'vestaFastify in a fastify app',
    async ({ machineId, clock, segments }) => {
      const service: IdService = await createRestIdService({
        machineId,
        clock,
        logger: silentLogger,
      });
      const app = Fastify();
      await app.register(vestaFastify, { ...APP_OPTIONS, service, segments });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as AddressInfo).port;
      return { port, close: () => app.close().then(() => service.close()) };
    },
  ],
];

function call(server: Target, path: string, method = 'GET', token = true): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method,
        agent: false,
        headers: token ? { authorization: `Bearer ${TOKEN}` } : {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end();
  });
}

interface Doc {
  openapi: string;
  servers: { url: string }[];
  info: { license: { name: string } };
  components: object;
  paths: Record<
    string,
    {
      get: {
        parameters: {
          name: string;
          in: 'query' | 'path';
          examples: Record<string, { value: unknown }>;
        }[];
        responses: Record<string, unknown>;
      };
    }
  >;
}

let server: Target;
let doc: Doc;
let clockOffsetMs = 0;

describe.each(TARGETS.map(([name, start], i) => [name, start, 1007 - i] as const))(
  'the OpenAPI document, served by %s',
  (_name, start, machineId) => {
    beforeAll(async () => {
      // Segment mode's routes answer the documents' example key from an in-memory store.
      const store = new MemorySegmentStore();
      await store.createKey('default', { step: 100 });
      server = await start({
        machineId,
        clock: () => Date.now() + clockOffsetMs,
        segments: createSegmentService({ store }),
      });
      doc = JSON.parse((await call(server, '/openapi.json')).body) as Doc;
    });

    afterAll(async () => {
      await server.close();
    });

    /** A documented path with its path parameters (`{key}`) filled with their examples. */
    function concrete(path: string): string {
      const parameters = doc.paths[path]?.get.parameters ?? [];
      return path.replace(/\{(\w+)\}/g, (_m, name: string) => {
        const param = parameters.find((p) => p.in === 'path' && p.name === name);
        expect(param, `${path} documents its path parameter ${name}`).toBeDefined();
        return encodeURIComponent(String(param?.examples.typical?.value));
      });
    }

    /** Checks one real answer against the document's responses of its path, with a third-party validator. */
    function expectConforms(path: string, answer: Answer): void {
      const operation = doc.paths[path]?.get;
      expect(operation, `${path} is documented`).toBeDefined();
      expect(
        Object.keys(operation?.responses ?? {}),
        `${path} documents ${answer.status}`,
      ).toContain(String(answer.status));
      const validator = new OpenAPIResponseValidator({
        responses: operation?.responses as never,
        components: doc.components as never,
      });
      const json = String(answer.headers['content-type']).startsWith('application/json');
      const errors = validator.validateResponse(
        String(answer.status),
        json ? JSON.parse(answer.body) : answer.body,
      );
      expect({ path, status: answer.status, errors }).toEqual({
        path,
        status: answer.status,
        errors: undefined,
      });
    }

    describe('the OpenAPI document', () => {
      it('is a valid OpenAPI 3.0 document with servers, a license and parameter examples', () => {
        expect(doc.openapi).toMatch(/^3\.0\./);
        const { errors } = new OpenAPISchemaValidator({ version: 3 }).validate(doc as never);
        expect(errors).toEqual([]);
        expect(doc.servers.length).toBeGreaterThan(0);
        expect(doc.info.license.name).toBe('Apache-2.0');
        for (const item of Object.values(doc.paths)) {
          for (const param of item.get.parameters) {
            expect(param.examples.typical?.value, param.name).toBeDefined();
          }
        }
      });

      it('reads for humans: every operation under a documented tag, with a short summary, a description, and examples that conform', () => {
        const full = doc as unknown as {
          tags: { name: string; description: string }[];
          paths: Record<
            string,
            {
              get: {
                tags: string[];
                summary: string;
                description: string;
                responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
              };
            }
          >;
        };
        const tags = full.tags.map((t) => t.name);
        expect(full.tags.every((t) => t.description.length > 0)).toBe(true);
        let examples = 0;
        for (const [path, { get }] of Object.entries(full.paths)) {
          expect(get.tags.length, path).toBe(1);
          expect(tags, path).toContain(get.tags[0]);
          expect(get.summary.length, path).toBeLessThanOrEqual(40);
          expect(get.description.length, path).toBeGreaterThan(get.summary.length);
          for (const [type, media] of Object.entries(get.responses['200']?.content ?? {})) {
            if (media.example === undefined) continue;
            examples++;
            const body =
              typeof media.example === 'string' ? media.example : JSON.stringify(media.example);
            expectConforms(path, { status: 200, headers: { 'content-type': type }, body });
          }
        }
        expect(examples).toBeGreaterThanOrEqual(4);
      });

      it("describes the 200 of every route, called with its parameters' examples", async () => {
        for (const [path, item] of Object.entries(doc.paths)) {
          const query = item.get.parameters
            .filter((p) => p.in === 'query')
            .map((p) => `${p.name}=${encodeURIComponent(String(p.examples.typical?.value))}`)
            .join('&');
          const answer = await call(
            server,
            query === '' ? concrete(path) : `${concrete(path)}?${query}`,
          );
          expect({ path, status: answer.status }).toEqual({ path, status: 200 });
          expectConforms(path, answer);
        }
      });

      it('describes the ids of /genid, /genids, /makeid and /expid in every form, scrambled or not', async () => {
        const formParam = doc.paths['/genid']?.get.parameters.find((p) => p.name === 'format');
        expect(formParam).toBeDefined();
        for (const form of ID_FORMS) {
          for (const scrambled of [false, true]) {
            const q = `format=${form}&scrambled=${scrambled}`;
            const one = await call(server, `/genid?${q}`);
            expectConforms('/genid', one);
            const { id } = JSON.parse(one.body) as { id: string };
            expectConforms('/genids', await call(server, `/genids?count=3&${q}`));
            expectConforms('/makeid', await call(server, `/makeid?time=5&seq=1&${q}`));
            const decoded = await call(server, `/expid?id=${encodeURIComponent(id)}&${q}`);
            expect(decoded.status, `${q}: ${decoded.body}`).toBe(200);
            expectConforms('/expid', decoded);
          }
        }
      });

      it('describes the 400, 401, 405 and 413 answers of every route', async () => {
        for (const path of Object.keys(doc.paths)) {
          const unknown = await call(server, `${concrete(path)}?zzz=1`);
          expect(unknown.status).toBe(400);
          expectConforms(path, unknown);
          const tooLong = await call(server, `${concrete(path)}?${'a'.repeat(2000)}=1`);
          expect(tooLong.status).toBe(413);
          expectConforms(path, tooLong);
          const wrongMethod = await call(server, concrete(path), 'DELETE');
          expect(wrongMethod.status).toBe(405);
          expect(wrongMethod.headers.allow).toBe('GET, HEAD');
          expectConforms(path, wrongMethod);
          if (path !== '/health') {
            const noToken = await call(server, concrete(path), 'GET', false);
            expect(noToken.status).toBe(401);
            expectConforms(path, noToken);
          }
        }
      });

      it('answers an unknown path at the root with the NOT_FOUND of the API, but fastify with its own 404', async () => {
        const answer = await call(server, '/nope');
        expect(answer.status).toBe(404);
        if (_name.includes('fastify')) {
          // Registered at the root, the plugin leaves the app's 404 to the app.
          expect(JSON.parse(answer.body)).toEqual({
            message: 'Route GET:/nope not found',
            error: 'Not Found',
            statusCode: 404,
          });
        } else {
          expect(JSON.parse(answer.body)).toEqual({
            error: { code: 'NOT_FOUND', message: 'no route "/nope"; GET /openapi.json lists them' },
          });
        }
      });

      it('describes the 400 of a Leaf get path with an invalid key', async () => {
        for (const key of ['a%20b', 'x'.repeat(129), '%E2%82%AC']) {
          const answer = await call(server, `/api/snowflake/get/${key}`);
          expect({ key, status: answer.status }).toEqual({ key, status: 400 });
          expectConforms('/api/snowflake/get/{key}', answer);
        }
      });

      it('describes the 503 of /genid, /genids and /health when the clock stepped back', async () => {
        await call(server, '/genid');
        clockOffsetMs = -5_000;
        try {
          for (const path of ['/genid', '/genids?count=2', '/health']) {
            const answer = await call(server, path);
            expect(answer.status).toBe(503);
            if (path !== '/health') expect(answer.headers['retry-after']).toBe('1');
            expectConforms(path.replace(/\?.*/, ''), answer);
          }
          const leaf = await call(server, '/api/snowflake/get/any-key');
          expect(leaf.status).toBe(503);
          expectConforms('/api/snowflake/get/{key}', leaf);
        } finally {
          clockOffsetMs = 0;
        }
      });
    });
  },
);

/** An answer as fetch reads it, with what the comparison looks at. */
interface Fetched {
  readonly status: number;
  readonly type: string | null;
  readonly allow: string | null;
  readonly body: string;
}

async function fetched(url: string, init: RequestInit = {}): Promise<Fetched> {
  const response = await fetch(url, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, ...init.headers },
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    allow: response.headers.get('allow'),
    body: await response.text(),
  };
}

/** The error code of an answer's `{"error":{"code"}}` body. */
function codeOf(answer: Fetched): string | undefined {
  return (JSON.parse(answer.body) as { error?: { code?: string } }).error?.code;
}

describe('createRestApp in express and vestaFastify in fastify, mounted at /ids', () => {
  const mounted: Target[] = [];
  let expressUrl: string;
  let fastifyUrl: string;

  beforeAll(async () => {
    const segments = createSegmentService({ store: new MemorySegmentStore() });
    const expressService = await createRestIdService({ machineId: 1001, logger: silentLogger });
    const outer = express();
    outer.use('/ids', createRestApp({ ...APP_OPTIONS, service: expressService, segments }));
    const server = createServer(outer);
    const expressPort = await listening(server);
    mounted.push({
      port: expressPort,
      close: () => closed(server).then(() => expressService.close()),
    });
    expressUrl = `http://127.0.0.1:${expressPort}/ids`;
    const fastifyService = await createRestIdService({ machineId: 1002, logger: silentLogger });
    const app = Fastify();
    await app.register(vestaFastify, {
      ...APP_OPTIONS,
      service: fastifyService,
      segments,
      prefix: '/ids',
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const fastifyPort = (app.server.address() as AddressInfo).port;
    mounted.push({
      port: fastifyPort,
      close: () => app.close().then(() => fastifyService.close()),
    });
    fastifyUrl = `http://127.0.0.1:${fastifyPort}/ids`;
  });

  afterAll(async () => {
    await Promise.all(mounted.map((target) => target.close()));
  });

  it.each([['express'], ['fastify']] as const)(
    '%s: /genid answers a decimal string above 2^53, exactly the id /expid decodes',
    async (framework) => {
      const url = framework === 'express' ? expressUrl : fastifyUrl;
      const one = await fetched(`${url}/genid`);
      expect(one.status).toBe(200);
      expect(one.type).toBe('application/json; charset=utf-8');
      // The raw text: a JSON string of digits, never a JSON number rounded to a double.
      expect(one.body).toMatch(/^\{"id":"[0-9]+"\}$/);
      const { id } = JSON.parse(one.body) as { id: string };
      const value = BigInt(id);
      expect(value > 2n ** 53n).toBe(true);
      expect(value.toString()).toBe(id);
      // Number(id) would lose the low digits; /expid reads the string back exactly.
      expect(BigInt(Number(id)) === value).toBe(false);
      const decoded = JSON.parse((await fetched(`${url}/expid?id=${id}`)).body) as {
        id: string;
        machine: number;
        genMethod: number;
      };
      expect(decoded).toMatchObject({
        id,
        machine: framework === 'express' ? 1001 : 1002,
        genMethod: 2,
      });
    },
  );

  it.each([['express'], ['fastify']] as const)(
    '%s: /genids?count=5 answers 5 strictly increasing decimal strings',
    async (framework) => {
      const url = framework === 'express' ? expressUrl : fastifyUrl;
      const batch = await fetched(`${url}/genids?count=5`);
      expect(batch.status).toBe(200);
      const { ids } = JSON.parse(batch.body) as { ids: string[] };
      expect(ids).toHaveLength(5);
      for (const id of ids) expect(id).toMatch(/^[0-9]+$/);
      const values = ids.map(BigInt);
      for (let i = 1; i < values.length; i++) {
        expect((values[i] ?? 0n) > (values[i - 1] ?? 0n)).toBe(true);
      }
    },
  );

  // Requests whose answers do not depend on the server's machine id or clock: both frameworks
  // must give the same status, content type, Allow header and body, byte for byte.
  it.each([
    ['a count out of range', '/genids?count=0', 400, 'INVALID_ARGUMENT', {}],
    ['a count that is not a number', '/genids?count=ten', 400, 'INVALID_ARGUMENT', {}],
    ['an unknown query parameter', '/genid?genmethod=2', 400, 'INVALID_ARGUMENT', {}],
    ['a repeated query parameter', '/genids?count=1&count=2', 400, 'INVALID_ARGUMENT', {}],
    ['malformed percent-encoding', '/genid?key=%E0%A4%A', 400, 'INVALID_ARGUMENT', {}],
    ['a query over maxQueryLength', `/genid?key=${'a'.repeat(1100)}`, 413, 'PAYLOAD_TOO_LARGE', {}],
    ['an unknown generator', '/genid?key=nope', 404, 'UNKNOWN_GENERATOR', {}],
    ['scrambled=maybe', '/genid?scrambled=maybe', 400, 'INVALID_ARGUMENT', {}],
    ['an invalid Leaf key', '/api/snowflake/get/a%20b', 400, 'INVALID_ARGUMENT', {}],
    [
      'a Leaf key over 100 characters',
      `/api/snowflake/get/${'x'.repeat(129)}`,
      400,
      'INVALID_ARGUMENT',
      {},
    ],
    ['a key of two segments', '/segment/a/b', 404, 'NOT_FOUND', {}],
    ['a segment key the store has not', '/segment/nope', 404, 'SEGMENT_KEY_UNKNOWN', {}],
    ['an unknown route below the mount', '/nope', 404, 'NOT_FOUND', {}],
    ['no token', '/genid', 401, 'UNAUTHORIZED', { headers: { authorization: '' } }],
    [
      'a POST with a body',
      '/genid',
      405,
      'METHOD_NOT_ALLOWED',
      { method: 'POST', body: '{"x":1}', headers: { 'content-type': 'application/json' } },
    ],
    [
      'a PUT of an unknown content type',
      '/genids',
      405,
      'METHOD_NOT_ALLOWED',
      { method: 'PUT', body: 'x', headers: { 'content-type': 'application/x-weird' } },
    ],
    ['a DELETE', '/info', 405, 'METHOD_NOT_ALLOWED', { method: 'DELETE' }],
    ['an OPTIONS', '/genid', 405, 'METHOD_NOT_ALLOWED', { method: 'OPTIONS' }],
    ['a HEAD, which issues nothing', '/genids?count=3', 200, undefined, { method: 'HEAD' }],
    ['a HEAD with a bad query', '/genids?count=0', 400, undefined, { method: 'HEAD' }],
    ['a made id', '/makeid?time=5&seq=1&machine=1000', 200, undefined, {}],
    ['a decoded id', '/expid?id=9007199254740993', 200, undefined, {}],
    [
      'Leaf decode',
      '/api/snowflake/decodeSnowflakeId?snowflakeId=9007199254740993',
      200,
      undefined,
      {},
    ],
  ] as const)('answer %s the same: %s is %i %s', async (_what, path, status, code, init) => {
    const [ours, theirs] = await Promise.all([
      fetched(`${expressUrl}${path}`, init as RequestInit),
      fetched(`${fastifyUrl}${path}`, init as RequestInit),
    ]);
    expect(ours.status).toBe(status);
    if (code !== undefined) expect(codeOf(ours)).toBe(code);
    expect(theirs).toEqual(ours);
  });

  it('differ where the routers do: express also matches /GENID and /genid/, fastify by default not', async () => {
    for (const path of ['/GENID', '/genid/']) {
      const [ours, theirs] = await Promise.all([
        fetched(`${expressUrl}${path}`),
        fetched(`${fastifyUrl}${path}`),
      ]);
      expect(ours.status, path).toBe(200);
      expect(theirs.status, path).toBe(404);
      expect(codeOf(theirs), path).toBe('NOT_FOUND');
    }
  });

  it('answers an unknown path outside the mount with each framework’s own 404', async () => {
    const [ours, theirs] = await Promise.all([
      fetched(expressUrl.replace(/\/ids$/, '/nope')),
      fetched(fastifyUrl.replace(/\/ids$/, '/nope')),
    ]);
    // express's final handler (HTML), fastify's default (JSON): the apps', not Vesta's.
    expect(ours.status).toBe(404);
    expect(ours.type).toMatch(/^text\/html/);
    expect(theirs.status).toBe(404);
    expect(JSON.parse(theirs.body)).toEqual({
      message: 'Route GET:/nope not found',
      error: 'Not Found',
      statusCode: 404,
    });
  });
});
