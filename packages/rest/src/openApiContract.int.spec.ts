import { ID_FORMS, silentLogger } from '@vesta/core';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import type * as ResponseValidatorModule from 'openapi-response-validator';
import type * as SchemaValidatorModule from 'openapi-schema-validator';
import { createSegmentService, MemorySegmentStore } from '@vesta/segment';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestServer, type RestServer } from './index.js';

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

function call(server: RestServer, path: string, method = 'GET', token = true): Promise<Answer> {
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

let server: RestServer;
let doc: Doc;
let clockOffsetMs = 0;

beforeAll(async () => {
  // Segment mode's routes answer the documents' example key from an in-memory store.
  const store = new MemorySegmentStore();
  await store.createKey('default', { step: 100 });
  server = await startRestServer({
    stateDir: false,
    logger: silentLogger,
    machineId: 1007,
    port: 0,
    authToken: TOKEN,
    scrambleKey: 'contract-test-scramble-key',
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
  expect(Object.keys(operation?.responses ?? {}), `${path} documents ${answer.status}`).toContain(
    String(answer.status),
  );
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
