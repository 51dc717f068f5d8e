import {
  ERROR_CODES,
  formatId,
  ID_FORMS,
  UUID_FORMS,
  type IdServiceInfo,
  type VestaErrorCode,
} from '@vesta/core';
import { ID_META_WIDTH_KEYS, MAX_SEGMENT_KEY_LENGTH, statusOf } from '@vesta/core/kit';
import { LEAF_KEY } from '../http/leafKey.js';
import { REST_ROUTES, REST_TAGS, type RestParam, type RestPath } from '../http/restRoutes.js';

const ID_SCHEMA = {
  type: 'string',
  pattern: '^[0-9]{1,20}$',
  description: 'An unsigned 64-bit id as a decimal string.',
};
/** An id in any form: decimal (signed for Java), 16 hex digits, 13 base32 or 11 base62 characters. */
const ID_TEXT_SCHEMA = {
  type: 'string',
  pattern: '^(-?[0-9]{1,20}|[0-9A-Za-z]{11}|[0-9A-Za-z]{13}|[0-9A-Fa-f]{16})$',
  description:
    "An id in the form the request's `format` names: decimal (default), signed, hex, base32 or base62.",
};
/** A UUID in any of its forms: canonical 8-4-4-4-12, 32 hex digits, 26 base32 characters. */
const UUID_SCHEMA = {
  type: 'string',
  pattern:
    '^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}|[0-7][0-9A-HJKMNP-TV-Z]{25})$',
  description:
    "An RFC 9562 version 7 UUID in the form the request's `format` names: canonical (default), hex or base32.",
};
const WHOLE = { type: 'integer', minimum: 0 };

/** A layout's widths in Vesta's field order (machine at bit 0 up to version), and its time unit. */
function layoutSchema(description: string, withUnit: boolean): object {
  const properties: Record<string, object> = Object.fromEntries(
    ID_META_WIDTH_KEYS.map((key) => [key, { type: 'integer', minimum: 0, maximum: 64 }]),
  );
  if (withUnit) properties.unitMs = { type: 'integer', minimum: 1 };
  return {
    type: 'object',
    description,
    required: [...ID_META_WIDTH_KEYS, ...(withUnit ? ['unitMs'] : [])],
    properties,
  };
}

const DECODED = {
  type: 'object',
  required: ['id', 'machine', 'seq', 'time', 'genMethod', 'type', 'version', 'date', 'layout'],
  properties: {
    id: { $ref: '#/components/schemas/Id' },
    machine: WHOLE,
    seq: WHOLE,
    time: WHOLE,
    genMethod: WHOLE,
    type: { type: 'integer', enum: [0, 1] },
    version: WHOLE,
    date: { type: 'string', format: 'date-time' },
    layout: layoutSchema(
      "The layout the id was decoded with: the server's own for its type, the other type's standard one otherwise. Fields stand in Vesta's order from bit 0: machine, seq, time, genMethod, type, version; bits above them are 0.",
      true,
    ),
  },
};

const OK_SCHEMAS: Record<RestPath, object> = {
  '/genid': {
    type: 'object',
    required: ['id'],
    properties: { id: { $ref: '#/components/schemas/IdText' } },
  },
  '/genids': {
    type: 'object',
    required: ['ids'],
    properties: { ids: { type: 'array', items: { $ref: '#/components/schemas/IdText' } } },
  },
  '/genuuid': {
    type: 'object',
    required: ['id'],
    properties: { id: { $ref: '#/components/schemas/Uuid' } },
  },
  '/genuuids': {
    type: 'object',
    required: ['ids'],
    properties: { ids: { type: 'array', items: { $ref: '#/components/schemas/Uuid' } } },
  },
  '/expid': DECODED,
  '/expuuid': {
    type: 'object',
    required: ['uuid', 'version', 'rfc9562', 'vesta'],
    properties: {
      uuid: { type: 'string', description: 'The canonical text.' },
      version: { type: 'integer', minimum: 0, maximum: 15 },
      rfc9562: { type: 'boolean', description: "Whether the variant bits are RFC 9562's." },
      unixMs: { type: 'integer', description: "A v7's time (any issuer's)." },
      date: { type: 'string', format: 'date-time' },
      vesta: { type: 'boolean', description: 'Whether it is a Vesta UUIDv7 (its check matches).' },
      counter: WHOLE,
      machine: WHOLE,
      genMethod: WHOLE,
      type: { type: 'integer', enum: [0, 1] },
      idVersion: { type: 'integer', enum: [0, 1] },
    },
  },
  '/transtime': {
    type: 'object',
    required: ['time', 'date'],
    properties: { time: WHOLE, date: { type: 'string', format: 'date-time' } },
  },
  '/makeid': {
    type: 'object',
    required: ['id'],
    properties: { id: { $ref: '#/components/schemas/IdText' } },
  },
  '/bounds': {
    type: 'object',
    required: ['from', 'to', 'fromMs', 'toMs', 'ids', 'uuids'],
    properties: {
      from: { type: 'string', format: 'date-time' },
      to: { type: 'string', format: 'date-time' },
      fromMs: { type: 'integer' },
      toMs: { type: 'integer' },
      ids: {
        type: 'array',
        description:
          'One range per value of the fields above time (in Vesta layout: genMethod, type, version), in increasing order; empty when no time unit starts in the window.',
        items: {
          type: 'object',
          required: ['min', 'max'],
          properties: {
            min: { $ref: '#/components/schemas/Id' },
            max: { $ref: '#/components/schemas/Id' },
            genMethod: WHOLE,
            type: { type: 'integer', enum: [0, 1] },
            version: WHOLE,
          },
        },
      },
      uuids: {
        type: 'object',
        required: ['min', 'max'],
        properties: {
          min: { $ref: '#/components/schemas/Uuid' },
          max: { $ref: '#/components/schemas/Uuid' },
        },
      },
    },
  },
  '/info': {
    type: 'object',
    description:
      'Layout widths, machine id, genMethod, type, epoch, expiry date, max batch, whether auth and scrambling are on.',
    required: [
      'machine',
      'genMethod',
      'version',
      'type',
      'typeName',
      'epoch',
      'epochMs',
      'unitMs',
      'expiry',
      'layout',
      'maxBatch',
      'auth',
    ],
    properties: {
      machine: WHOLE,
      genMethod: WHOLE,
      version: WHOLE,
      populator: { type: 'string' },
      type: { type: 'integer', enum: [0, 1] },
      typeName: { type: 'string', enum: ['max-peak', 'min-granularity'] },
      epoch: { type: 'string', format: 'date-time' },
      epochMs: { type: 'integer' },
      unitMs: { type: 'integer', minimum: 1 },
      expiry: { type: 'string', format: 'date-time' },
      layout: layoutSchema(
        "The widths of the server's layout, in Vesta's field order from bit 0.",
        false,
      ),
      maxBatch: { type: 'integer', minimum: 1 },
      auth: { type: 'boolean', description: 'Whether the routes need a bearer token.' },
      scrambling: { type: 'boolean', description: 'Whether the server has a scramble key.' },
    },
  },
  '/generators': {
    type: 'object',
    required: ['generators'],
    properties: {
      generators: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'shared', 'machine', 'type', 'issued'],
          properties: {
            name: { type: 'string' },
            shared: { type: 'boolean' },
            machine: WHOLE,
            type: { type: 'integer', enum: [0, 1] },
            issued: WHOLE,
          },
        },
      },
    },
  },
  '/health': {
    type: 'object',
    required: ['status'],
    properties: {
      status: { type: 'string', enum: ['ok', 'unavailable'] },
      error: { $ref: '#/components/schemas/ErrorDetail' },
      workers: {
        type: 'array',
        description: 'From a server of several workers (startRestCluster): each worker.',
        items: {
          type: 'object',
          required: ['worker', 'machineId', 'status'],
          properties: {
            worker: { type: 'integer', minimum: 0 },
            machineId: { type: 'integer', nullable: true },
            status: { type: 'string', enum: ['ok', 'unavailable'] },
            error: { $ref: '#/components/schemas/ErrorDetail' },
          },
        },
      },
    },
  },
  '/metrics': { type: 'string', description: 'Prometheus text exposition format.' },
  '/api/snowflake/get/{key}': {
    type: 'string',
    pattern: '^[0-9]{1,20}$',
    description: 'The id alone, as a decimal string (Leaf answers the same).',
  },
  '/segment/{key}': {
    type: 'object',
    required: ['id'],
    properties: { id: { $ref: '#/components/schemas/Id' } },
  },
  '/api/segment/get/{key}': {
    type: 'string',
    pattern: '^[0-9]{1,20}$',
    description: 'The number alone, as a decimal string (Leaf answers the same).',
  },
  '/api/snowflake/decodeSnowflakeId': {
    type: 'object',
    required: ['timestamp', 'workerId', 'sequenceId'],
    properties: {
      timestamp: {
        type: 'string',
        description: 'Unix ms, then the date in UTC: `1569222555345(2019-09-23 07:09:15.345)`.',
      },
      workerId: { type: 'string', pattern: '^[0-9]+$' },
      sequenceId: { type: 'string', pattern: '^[0-9]+$' },
    },
  },
  '/openapi.json': { type: 'object' },
};

function paramSchema(param: RestParam, maxBatch: number): object {
  if (param.kind === 'id') return { $ref: '#/components/schemas/IdText' };
  if (param.kind === 'form') return { type: 'string', enum: ID_FORMS, default: 'decimal' };
  if (param.kind === 'uuid') return { $ref: '#/components/schemas/UuidText' };
  if (param.kind === 'instant') {
    return {
      oneOf: [
        { type: 'integer', minimum: 0 },
        { type: 'string', format: 'date-time' },
      ],
    };
  }
  if (param.kind === 'uuidForm') return { type: 'string', enum: UUID_FORMS, default: 'canonical' };
  if (param.kind === 'flag') return { type: 'boolean', default: false };
  if (param.kind === 'name')
    return { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' };
  if (param.kind === 'key') return { type: 'string', pattern: LEAF_KEY.source };
  if (param.kind === 'segmentKey') {
    return {
      type: 'string',
      minLength: 1,
      maxLength: MAX_SEGMENT_KEY_LENGTH,
      pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F]+$',
    };
  }
  if (param.kind === 'type') {
    return {
      oneOf: [
        { type: 'integer', enum: [0, 1] },
        { type: 'string', enum: ['max-peak', 'min-granularity'] },
      ],
    };
  }
  return param.name === 'count' ? { type: 'integer', minimum: 1, maximum: maxBatch } : WHOLE;
}

/** Example values of each query parameter, shown by tools (and tried by the tests). */
const PARAM_EXAMPLES: Record<string, string | number | boolean> = {
  count: 3,
  // A generator name (query) and a Leaf key (path): the server's own generator answers both.
  key: 'default',
  // In the example `format`.
  id: formatId(2369919850714760191n, 'base32'),
  format: 'base32',
  scrambled: false,
  time: 59678014,
  seq: 1,
  machine: 1000,
  genMethod: 2,
  type: 'max-peak',
  version: 0,
  snowflakeId: '2369919850714760191',
  uuid: '019ac4d2-6a2b-7000-8000-3e8123456789',
  from: '2026-11-27T00:00:00Z',
  to: '2026-11-27T23:59:59.999Z',
};

/** Example answers, shown by tools (ids from the parameters' examples). */
const OK_EXAMPLES = {
  '/genid': { id: '2369919850714760191' },
  '/genids': { ids: ['2369919850714760191', '2369919850714760192', '2369919850714760193'] },
  '/genuuid': { id: '019ac4d2-6a2b-7000-8000-3e8123456789' },
  '/health': { status: 'ok' },
  '/api/snowflake/get/{key}': '2369919850714760191',
} as const;

const RETRY_AFTER = {
  'Retry-After': {
    description: 'Whole seconds to wait before retrying (at least 1).',
    schema: { type: 'integer', minimum: 1 },
  },
};

/** The routes that issue: 503 when the generator cannot. */
const ISSUING: ReadonlySet<string> = new Set([
  '/genid',
  '/genids',
  '/genuuid',
  '/genuuids',
  '/api/snowflake/get/{key}',
  '/segment/{key}',
  '/api/segment/get/{key}',
]);

/** The response key of `code`: its HTTP status, from the one table of codes. */
function statusKey(code: VestaErrorCode): string {
  return String(statusOf(code));
}

function errorResponse(description: string, headers?: object): object {
  return {
    description,
    ...(headers === undefined ? {} : { headers }),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

/** The OpenAPI 3 document of the REST API, built from the same route table the app serves. */
export function buildOpenApiDocument(info: IdServiceInfo, maxBatch: number, auth: boolean): object {
  const paths: Record<string, object> = {};
  for (const route of REST_ROUTES) {
    const responses: Record<string, object> = {
      '200': {
        description: 'OK',
        content: {
          [route.produces]: {
            schema: OK_SCHEMAS[route.path],
            ...(route.path in OK_EXAMPLES
              ? { example: OK_EXAMPLES[route.path as keyof typeof OK_EXAMPLES] }
              : {}),
          },
        },
      },
    };
    // Unknown query parameters are rejected (INVALID_ARGUMENT), on every route.
    responses[statusKey('INVALID_ARGUMENT')] = errorResponse(
      route.params.length > 0
        ? 'A missing, malformed, out-of-range, repeated or unknown query parameter (INVALID_ARGUMENT), or a request without Host (PROTOCOL_ERROR).'
        : `Any query parameter: ${route.path} takes none (INVALID_ARGUMENT); or a request without Host (PROTOCOL_ERROR).`,
    );
    if (auth && !route.open) {
      responses[statusKey('UNAUTHORIZED')] = errorResponse(
        'A valid bearer token is required (UNAUTHORIZED).',
        {
          'WWW-Authenticate': { schema: { type: 'string' } },
        },
      );
    }
    responses[statusKey('METHOD_NOT_ALLOWED')] = errorResponse(
      'Only GET and HEAD are allowed (METHOD_NOT_ALLOWED).',
      {
        Allow: { schema: { type: 'string', enum: ['GET, HEAD'] } },
      },
    );
    responses[statusKey('PAYLOAD_TOO_LARGE')] = errorResponse(
      'The query is longer than the cap, or the request head too large (PAYLOAD_TOO_LARGE).',
    );
    const issues = ISSUING.has(route.path);
    if (route.path === '/segment/{key}' || route.path === '/api/segment/get/{key}') {
      responses[statusKey('SEGMENT_KEY_UNKNOWN')] = errorResponse(
        'The segment store has no such key, or this server has no segment store (SEGMENT_KEY_UNKNOWN).',
      );
    }
    if (route.path === '/genid' || route.path === '/genids') {
      responses[statusKey('UNKNOWN_GENERATOR')] = errorResponse(
        'No generator has the name given as `key` (UNKNOWN_GENERATOR).',
      );
    }
    const unavailable =
      (issues ? 'The generator cannot issue now (clock behind, lease lost, closing), or ' : '') +
      'too many requests are in flight (OVERLOADED).';
    if (route.path === '/health') {
      responses[statusKey('OVERLOADED')] = {
        description: `The server cannot issue ids now; the error says why. Or ${unavailable}`,
        content: {
          'application/json': {
            schema: {
              anyOf: [OK_SCHEMAS['/health'], { $ref: '#/components/schemas/Error' }],
            },
          },
        },
      };
    } else {
      responses[statusKey('OVERLOADED')] = errorResponse(unavailable, RETRY_AFTER);
    }
    paths[route.path] = {
      get: {
        operationId:
          'operationId' in route ? route.operationId : route.path.slice(1).replace('.json', ''),
        tags: [route.tag],
        summary: route.summary,
        description: route.description,
        parameters: [
          ...('pathParam' in route ? [{ ...route.pathParam, in: 'path' }] : []),
          ...route.params.map((p) => ({ ...p, in: 'query' })),
        ].map((p) => ({
          name: p.name,
          in: p.in,
          required: p.required,
          description: p.description,
          schema: paramSchema(p, maxBatch),
          examples: { typical: { value: PARAM_EXAMPLES[p.name] } },
        })),
        ...(auth && !route.open ? {} : { security: [] }),
        responses,
      },
    };
  }
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
      schemas: {
        Id: ID_SCHEMA,
        IdText: ID_TEXT_SCHEMA,
        Uuid: UUID_SCHEMA,
        UuidText: {
          type: 'string',
          pattern:
            '^([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|[0-9A-Fa-f]{32}|[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25})$',
          description:
            'A UUID of any version in any form: canonical, 32 hex digits or 26 base32 characters.',
        },
        ErrorDetail: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', enum: Object.keys(ERROR_CODES) },
            message: { type: 'string' },
          },
        },
        Error: {
          type: 'object',
          required: ['error'],
          properties: { error: { $ref: '#/components/schemas/ErrorDetail' } },
        },
      },
      ...(auth ? { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } } : {}),
    },
    ...(auth ? { security: [{ bearer: [] }] } : {}),
  };
}
