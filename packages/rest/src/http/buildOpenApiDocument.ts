import { ERROR_CODES, type IdServiceInfo, type VestaErrorCode } from '@vesta/core';
import { statusOf } from '@vesta/core/kit';
import { z } from 'zod';
import { ERROR_DETAIL, REST_ROUTES, REST_TAGS, type RestRoute } from './restRoutes.js';

type JsonSchema = Record<string, unknown>;

/** The OpenAPI 3.0 schema of `schema`: what a client sends (`output`: with its default) or gets. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, { target: 'openapi-3.0', io }) as JsonSchema;
}

const ERROR = { $ref: '#/components/schemas/Error' };
const UNAVAILABLE = [
  'CLOCK_BEHIND_HIGH_WATER_MARK',
  'MACHINE_ID_LEASE_LOST',
  'SERVICE_CLOSED',
] as const;

function errorAnswer(codes: readonly VestaErrorCode[], headers?: object): object {
  return {
    description: codes.map((code) => `${ERROR_CODES[code].description} (${code})`).join(' Or: '),
    ...(headers === undefined ? {} : { headers }),
    content: { 'application/json': { schema: ERROR } },
  };
}

/** Every answer of `route`: its 200, then its errors by status, from the one table of codes. */
function responses(route: RestRoute, auth: boolean): Record<string, object> {
  const { example, ...schema } = jsonSchema(route.answer, 'input');
  const ok = { schema, ...(example === undefined ? {} : { example }) };
  const byStatus: Record<string, object> = {
    200: { description: 'OK', content: { [route.produces ?? 'application/json']: ok } },
  };
  const add = (codes: readonly VestaErrorCode[], headers?: object): void => {
    byStatus[statusOf(codes[0] as VestaErrorCode)] = errorAnswer(codes, headers);
  };
  // An unknown query parameter is refused on every route.
  add(['INVALID_ARGUMENT', 'PROTOCOL_ERROR']);
  if (auth && route.open !== true)
    add(['UNAUTHORIZED'], { 'WWW-Authenticate': { schema: { type: 'string' } } });
  add(['METHOD_NOT_ALLOWED'], { Allow: { schema: { type: 'string', enum: ['GET, HEAD'] } } });
  add(['PAYLOAD_TOO_LARGE']);
  if (route.errors !== undefined) add(route.errors);
  const description = 'Whole seconds to wait before retrying (at least 1).';
  const retryAfter = { 'Retry-After': { description, schema: { type: 'integer', minimum: 1 } } };
  add([...(route.issues === true ? UNAVAILABLE : []), 'OVERLOADED'], retryAfter);
  if (route.path === '/health') {
    byStatus[statusOf('OVERLOADED')] = {
      description: 'The server cannot issue ids now; the error says why.',
      content: { 'application/json': { schema: { anyOf: [schema, ERROR] } } },
    };
  }
  return byStatus;
}

/** A parameter as OpenAPI lists it, its description and example taken from its schema's meta. */
function parameter(route: RestRoute, name: string, maxBatch: number): object {
  const param = route.params[name];
  const { description, example, ...schema } = jsonSchema(param?.schema ?? z.never(), 'output');
  if (name === 'count') schema.maximum = maxBatch;
  const inPath = route.path.includes(`{${name}}`);
  return {
    name,
    in: inPath ? 'path' : 'query',
    required: inPath || param?.schema.safeParse(undefined).success !== true,
    description,
    schema,
    examples: { typical: { value: example } },
  };
}

/** The OpenAPI 3 document of the REST API, generated from the route table the app serves. */
export function buildOpenApiDocument(info: IdServiceInfo, maxBatch: number, auth: boolean): object {
  const routes: readonly RestRoute[] = REST_ROUTES;
  const paths = Object.fromEntries(
    routes.map((route) => [
      route.path,
      {
        get: {
          operationId: route.operationId ?? route.path.slice(1).replace('.json', ''),
          tags: [route.tag],
          summary: route.summary,
          description: route.description,
          parameters: Object.keys(route.params).map((name) => parameter(route, name, maxBatch)),
          ...(auth && route.open !== true ? {} : { security: [] }),
          responses: responses(route, auth),
        },
      },
    ]),
  );
  return {
    openapi: '3.0.3',
    info: {
      title: 'Vesta REST id service',
      version: '1',
      description:
        `Unique, time-ordered, reversible 64-bit ids; every id is a decimal string unless \`format\` asks for ` +
        'another form (hex, base32, base62: fixed-width, in id order; signed: as Java prints it). This server: ' +
        `machine ${info.machine}, genMethod ${info.genMethod}, type ${info.typeName}, epoch ${info.epoch}. ` +
        'UUIDv7s (RFC 9562) come from /genuuid and /genuuids, from the same claims as the ids. ' +
        'Every route answers GET and HEAD; a HEAD of a route that issues issues nothing. ' +
        'An unknown query parameter is a 400, never ignored. ' +
        'A page to decode and issue ids is served at `/`, and this document, rendered, at `/docs` (neither needs a token).',
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    tags: REST_TAGS,
    // Relative: the routes sit beside this document, wherever the app is mounted.
    servers: [{ url: '.', description: 'this server' }],
    paths,
    components: {
      schemas: { Error: jsonSchema(z.object({ error: ERROR_DETAIL }), 'input') },
      ...(auth ? { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } } : {}),
    },
    ...(auth ? { security: [{ bearer: [] }] } : {}),
  };
}
