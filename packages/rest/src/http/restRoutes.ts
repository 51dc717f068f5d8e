import {
  decodeUuid,
  ERROR_CODES,
  formatId,
  ID_FORMS,
  parseId,
  UUID_FORMS,
  VestaError,
  type IdGenerators,
  type IdScrambler,
  type IdService,
  type VestaErrorCode,
} from '@vesta/core';
import {
  checkBatchCount,
  checkSegmentKey,
  ID_META_WIDTH_KEYS,
  ID_TYPE_NAMES,
  MAX_SEGMENT_KEY_LENGTH,
  parseIdForm,
  parseIdType,
  parseInstant,
  parseUuidForm,
} from '@vesta/core/kit';
import { z } from 'zod';

/** What a parameter's rule may consult: the app's limit and parts. */
export interface ParamScope {
  readonly maxBatch: number;
  readonly generators: IdGenerators;
  readonly scrambler: IdScrambler | undefined;
}

/** A route's parameter, in the query or (`{name}`) the path: its OpenAPI `schema`, its `read` rule. */
export interface RestParam<T = unknown> {
  readonly schema: z.ZodType;
  readonly read: (raw: string, name: string, scope: ParamScope) => T;
}

function param<S extends z.ZodType, T>(
  schema: S,
  description: string,
  example: unknown,
  read: RestParam<T>['read'],
): RestParam<T | (undefined extends z.output<S> ? undefined : never)> {
  return { schema: schema.meta({ description, example }), read };
}

/** `value` quoted for a message, cut at 40 characters. */
export function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
}

const DIGITS = /^[0-9]{1,15}$/;

/** A whole decimal number: no sign, exponent, fraction or spaces. */
function whole(raw: string, name: string): number {
  if (DIGITS.test(raw)) return Number(raw);
  const message = `${name} must be a whole decimal number, got ${shown(raw)}`;
  throw new VestaError('INVALID_ARGUMENT', message);
}

const WHOLE = z.int().min(0).max(999_999_999_999_999);
const LEAF_KEY = /^[A-Za-z0-9_.-]{1,128}$/;
const GENERATOR_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const NO_CONTROLS = '^[^\\u0000-\\u001F\\u007F-\\u009F]+$';
/** A UUID in any of its forms: canonical, 32 hex digits or 26 of Crockford's base 32, any case. */
const ANY_UUID =
  /^([0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}|[0-9A-Fa-f]{32}|[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25})$/;
const INT = z.int().min(0);
const TYPE = z.literal([0, 1]);
const DATE = z.string().meta({ format: 'date-time' });
const ID = z.string().regex(/^[0-9]{1,20}$/);
const ID_TEXT = z
  .string()
  .regex(/^(-?[0-9]{1,20}|[0-9A-Za-z]{11}|[0-9A-Za-z]{13}|[0-9A-Fa-f]{16})$/)
  .meta({ description: "An id in the form of the request's `format`." });
const UUID = z
  .string()
  .regex(/^([0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}|[0-9a-f]{32}|[0-7][0-9A-HJKMNP-TV-Z]{25})$/)
  .meta({ description: "A UUIDv7 in the form of the request's `format`." });

/** A layout's widths in Vesta's field order (machine at bit 0 up to version), and its time unit. */
function layout(description: string, withUnit: boolean) {
  const widths = Object.fromEntries(ID_META_WIDTH_KEYS.map((key) => [key, z.int().min(0).max(64)]));
  return z.object(withUnit ? { ...widths, unitMs: z.int().min(1) } : widths).meta({ description });
}

/** `{"code","message"}` of an error answer's body `{"error":...}`. */
export const ERROR_DETAIL = z.object({
  code: z.enum(Object.keys(ERROR_CODES) as VestaErrorCode[]),
  message: z.string(),
});

const TYPE_PARAM = param(
  z.union([TYPE, z.enum(Object.keys(ID_TYPE_NAMES) as (keyof typeof ID_TYPE_NAMES)[])]).optional(),
  "The id type: 0 or 'max-peak' (seconds), 1 or 'min-granularity' (milliseconds). Default: the server's.",
  'max-peak',
  (raw, name) => parseIdType(raw, name),
);

const FORMAT_PARAM = param(
  z.enum(ID_FORMS).default('decimal'),
  "The form of the ids: 'decimal' (default: unsigned), 'signed' (Java's long), 'hex' (16 lower-case digits), 'base32' (13 characters of Crockford's base 32) or 'base62' (11 characters of 0-9A-Za-z). hex, base32 and base62 are fixed-width: their string order is the ids' order.",
  'base32',
  (raw, name) => parseIdForm(raw, name),
);

const SCRAMBLED_PARAM = param(
  z.boolean().optional().meta({ default: false }),
  "true: the ids are scrambled with the server's scramble key (obfuscation: hides order, volume and time, reversible with the key). Default false; true on a server without a key is INVALID_ARGUMENT.",
  false,
  (raw, name, { scrambler }): IdScrambler | undefined => {
    if (raw === 'false') return undefined;
    if (raw !== 'true') {
      const message = `${name} must be true or false, got ${JSON.stringify(raw.slice(0, 40))}`;
      throw new VestaError('INVALID_ARGUMENT', message);
    }
    if (scrambler !== undefined) return scrambler;
    const why = 'scrambled=true needs a scramble key, and this server has none (--scramble-key)';
    throw new VestaError('INVALID_ARGUMENT', why);
  },
);

const KEY_PARAM = param(
  z.string().regex(GENERATOR_NAME).optional(),
  "The generator's name: 1 to 64 letters, digits, '.', '_' or '-'. Default: the server's own generator ('default'); ids are unique across all names.",
  'default',
  (raw, _name, { generators }): IdService => generators.get(raw),
);

const UUID_FORMAT_PARAM = param(
  z.enum(UUID_FORMS).default('canonical'),
  "The form of the UUIDs: 'canonical' (default: RFC 9562's 8-4-4-4-12 lower-case hex), 'hex' (32 digits) or 'base32' (26 characters of Crockford's base 32, as a ULID). Each is fixed-width: string order is time order.",
  'base32',
  (raw, name) => parseUuidForm(raw, name),
);

const COUNT_PARAM = param(
  z.int().min(1),
  "How many: 1 to the server's max batch.",
  3,
  (raw, name, { maxBatch }) => {
    const count = whole(raw, name);
    checkBatchCount(count, maxBatch);
    return count;
  },
);

const SEGMENT_KEY_PARAM = param(
  z.string().min(1).max(MAX_SEGMENT_KEY_LENGTH).meta({ pattern: NO_CONTROLS }),
  'The business key (created in the segment store beforehand): 1 to 200 characters (code points) without control characters (C0, DEL, C1), lone surrogates or noncharacters, percent-encoded in the path (a space as %20, a slash as %2F); INVALID_ARGUMENT (400) otherwise, or for malformed percent-encoding.',
  'default',
  (raw) => checkSegmentKey(raw),
);

const wholeParam = (description: string, example: number) =>
  param(WHOLE, description, example, whole);
const optionalWholeParam = (description: string, example: number) =>
  param(WHOLE.optional(), description, example, whole);
const instantParam = (description: string, example: string) =>
  param(z.union([INT, DATE]), description, example, (raw, name) => parseInstant(raw, name));

/** The groups of the documentation, in order, each with what its routes are for. */
export const REST_TAGS = [
  { name: 'ids', description: 'Issue ids (or UUIDv7s): one, or a batch.' },
  { name: 'codec', description: 'Decode and make ids, and read their dates, offline.' },
  { name: 'service', description: 'This server: what it is, whether it can issue, its metrics.' },
  {
    name: 'segments',
    description:
      'Segment mode: dense, increasing numbers per business key, from ranges claimed in a store (@vesta/segment).',
  },
  {
    name: 'leaf',
    description: "Meituan Leaf's snowflake and segment paths, for clients written against Leaf.",
  },
] as const;

/** One route of the REST API. */
export interface RestRoute {
  readonly path: string;
  /** The group it is listed under in the documentation (see {@link REST_TAGS}). */
  readonly tag: (typeof REST_TAGS)[number]['name'];
  /** A few words, as a title. */
  readonly summary: string;
  /** What it does and when to use it, in sentences. */
  readonly description: string;
  /** Its parameters, read in this order: `{name}` in `path` for a path parameter, else the query's. */
  readonly params: Readonly<Record<string, RestParam>>;
  /** The body of its 200 (with an `example` in its meta, where tools should show one). */
  readonly answer: z.ZodType;
  /** Answered without a token when auth is on. */
  readonly open?: true;
  /** The response's media type. @default 'application/json' */
  readonly produces?: 'text/plain';
  /** It issues: 503 when the generator cannot. */
  readonly issues?: true;
  /** Codes of its own beyond every route's. */
  readonly errors?: readonly VestaErrorCode[];
  /** The OpenAPI operation id. @default the path without its slash and `.json` */
  readonly operationId?: string;
}

const ID_ANSWER = z.object({ id: ID_TEXT });
const UUID_ANSWER = z.object({ id: UUID });
const HEALTH_ANSWER = z.object({
  status: z.enum(['ok', 'unavailable']),
  error: ERROR_DETAIL.optional(),
  workers: z
    .array(
      z.object({
        worker: INT,
        machineId: INT.nullable(),
        status: z.enum(['ok', 'unavailable']),
        error: ERROR_DETAIL.optional(),
      }),
    )
    .optional()
    .meta({ description: 'From a server of several workers (startRestCluster): each worker.' }),
});

/**
 * Every route of the REST API, in one table: the handlers read their parameters by it, the
 * servers route by it and the OpenAPI document is generated from it. Java Vesta's paths are kept.
 */
export const REST_ROUTES = [
  {
    path: '/genid',
    tag: 'ids',
    summary: 'Issue one id',
    description:
      "Issues one id of the server's own generator, or of the named generator `key`, as a JSON string in `format`. Ids of one server increase strictly; a HEAD issues none.",
    params: { key: KEY_PARAM, format: FORMAT_PARAM, scrambled: SCRAMBLED_PARAM },
    answer: ID_ANSWER.meta({ example: { id: '2369919850714760191' } }),
    issues: true,
    errors: ['UNKNOWN_GENERATOR'],
  },
  {
    path: '/genids',
    tag: 'ids',
    summary: 'Issue a batch of ids',
    description:
      "Issues `count` ids, strictly increasing, in one answer. Batches share the server's capacity fairly between connections, so one greedy client cannot starve a `/genid` caller.",
    params: {
      count: COUNT_PARAM,
      key: KEY_PARAM,
      format: FORMAT_PARAM,
      scrambled: SCRAMBLED_PARAM,
    },
    answer: z.object({ ids: z.array(ID_TEXT) }).meta({
      example: { ids: ['2369919850714760191', '2369919850714760192', '2369919850714760193'] },
    }),
    issues: true,
    errors: ['UNKNOWN_GENERATOR'],
  },
  {
    path: '/genuuid',
    tag: 'ids',
    summary: 'Issue one UUIDv7',
    description:
      "Issues one RFC 9562 version 7 UUID from the same claims as the server's ids: its time, a counter and the server's machine id, so UUIDs are unique across the fleet by construction and increase strictly per server. A HEAD issues none.",
    params: { format: UUID_FORMAT_PARAM },
    answer: UUID_ANSWER.meta({ example: { id: '019ac4d2-6a2b-7000-8000-3e8123456789' } }),
    issues: true,
  },
  {
    path: '/genuuids',
    tag: 'ids',
    summary: 'Issue a batch of UUIDv7s',
    description:
      "Issues `count` UUIDv7s, strictly increasing, in one answer, sharing the server's capacity with id batches fairly.",
    params: { count: COUNT_PARAM, format: UUID_FORMAT_PARAM },
    answer: z.object({ ids: z.array(UUID) }),
    issues: true,
  },
  {
    path: '/expid',
    tag: 'codec',
    summary: 'Decode an id',
    description:
      'Decodes an id of either type and any genMethod into its fields (time, sequence, machine, genMethod, type, version) and the date it was issued.',
    params: {
      // Read in the form `format` names, once that is known.
      id: param(
        ID_TEXT,
        "The id in the form `format` names (decimal by default; Java's negative longs are read as the ids they stand for); forms are never guessed.",
        formatId(2369919850714760191n, 'base32'),
        (raw) => raw,
      ),
      format: FORMAT_PARAM,
      scrambled: SCRAMBLED_PARAM,
    },
    answer: z.object({
      id: ID,
      machine: INT,
      seq: INT,
      time: INT,
      genMethod: INT,
      type: TYPE,
      version: INT,
      date: DATE,
      layout: layout(
        "The layout the id was decoded with: the server's own for its type, the other type's standard one otherwise. Fields stand in Vesta's order from bit 0: machine, seq, time, genMethod, type, version; bits above them are 0.",
        true,
      ),
    }),
  },
  {
    path: '/expuuid',
    tag: 'codec',
    summary: 'Decode a UUID',
    description:
      "Decodes a UUID in any form (canonical, 32 hex digits, 26 base32 characters): its version and variant; a v7's time; and for a Vesta UUIDv7 (`vesta: true`) the counter, machine id, genMethod, id type and version bit it was issued under. A v7 of another issuer gives its time only.",
    params: {
      uuid: param(
        z.string().regex(ANY_UUID),
        'The UUID, in any of its forms.',
        '019ac4d2-6a2b-7000-8000-3e8123456789',
        (raw) => decodeUuid(raw),
      ),
    },
    answer: z.object({
      uuid: z.string().meta({ description: 'The canonical text.' }),
      version: z.int().min(0).max(15),
      rfc9562: z.boolean().meta({ description: "Whether the variant bits are RFC 9562's." }),
      unixMs: z.int().optional().meta({ description: "A v7's time (any issuer's)." }),
      date: DATE.optional(),
      vesta: z.boolean().meta({ description: 'Whether it is a Vesta UUIDv7 (its check matches).' }),
      counter: INT.optional(),
      machine: INT.optional(),
      genMethod: INT.optional(),
      type: TYPE.optional(),
      idVersion: TYPE.optional(),
    }),
  },
  {
    path: '/transtime',
    tag: 'codec',
    summary: 'Turn a time field into a date',
    description:
      'Turns a time field (units since the epoch: seconds for max-peak, ms for min-granularity) into the date it stands for.',
    params: { time: wholeParam('Time units since the epoch.', 59678014), type: TYPE_PARAM },
    answer: z.object({ time: INT, date: DATE }),
  },
  {
    path: '/makeid',
    tag: 'codec',
    summary: 'Make an id from fields',
    description:
      "Encodes fields into an id; every field is range-checked against the layout (out of range is INVALID_ARGUMENT, never wrapped). Fields left out are the server's own.",
    params: {
      time: wholeParam('Time units since the epoch.', 59678014),
      seq: wholeParam('Sequence within the time unit.', 1),
      machine: optionalWholeParam("Machine id. Default: the server's.", 1000),
      genMethod: optionalWholeParam("Generation method 0-3. Default: the server's (2).", 2),
      type: TYPE_PARAM,
      version: optionalWholeParam("Version bit. Default: the server's.", 0),
      format: FORMAT_PARAM,
      scrambled: SCRAMBLED_PARAM,
    },
    answer: ID_ANSWER,
  },
  {
    path: '/bounds',
    tag: 'codec',
    summary: 'The ids and UUIDs of a time window',
    description:
      "For `WHERE id BETWEEN min AND max`: the smallest and largest id of the server's layout and version whose time unit starts in [from, to] (both inclusive), one range per genMethod in Vesta's layout (whose genMethod lies above the time), one for layouts whose time is the top field; and the smallest and largest UUIDv7 of the window. Ids are decimal strings.",
    params: {
      from: instantParam(
        "The window's first instant: Unix ms or ISO-8601 (`2026-11-27T00:00:00Z`).",
        '2026-11-27T00:00:00Z',
      ),
      to: instantParam(
        "The window's last instant (inclusive): Unix ms or ISO-8601.",
        '2026-11-27T23:59:59.999Z',
      ),
      genMethod: optionalWholeParam(
        'Only the ids of this genMethod (0-3). Default: every genMethod, a range each.',
        2,
      ),
      type: TYPE_PARAM,
      version: optionalWholeParam("Only the ids of this version. Default: the server's.", 0),
    },
    answer: z.object({
      from: DATE,
      to: DATE,
      fromMs: z.int(),
      toMs: z.int(),
      ids: z
        .array(
          z.object({
            min: ID,
            max: ID,
            genMethod: INT.optional(),
            type: TYPE.optional(),
            version: INT.optional(),
          }),
        )
        .meta({
          description:
            'One range per value of the fields above time (in Vesta layout: genMethod, type, version), in increasing order; empty when no time unit starts in the window.',
        }),
      uuids: z.object({ min: UUID, max: UUID }),
    }),
  },
  {
    path: '/info',
    tag: 'service',
    summary: 'Describe this server',
    description: 'Layout, machine id, genMethod, epoch and the date the time field runs out.',
    params: {},
    answer: z.object({
      machine: INT,
      genMethod: INT,
      version: INT,
      populator: z.string().optional(),
      type: TYPE,
      typeName: z.enum(['max-peak', 'min-granularity']),
      epoch: DATE,
      epochMs: z.int(),
      unitMs: z.int().min(1),
      expiry: DATE,
      layout: layout(
        "The widths of the server's layout, in Vesta's field order from bit 0.",
        false,
      ),
      maxBatch: z.int().min(1),
      auth: z.boolean().meta({ description: 'Whether the routes need a bearer token.' }),
      scrambling: z
        .boolean()
        .optional()
        .meta({ description: 'Whether the server has a scramble key.' }),
    }),
  },
  {
    path: '/generators',
    tag: 'service',
    summary: 'List the named generators',
    description: 'The named generators: name, machine id, type and ids issued under each name.',
    params: {},
    answer: z.object({
      generators: z.array(
        z.object({ name: z.string(), shared: z.boolean(), machine: INT, type: TYPE, issued: INT }),
      ),
    }),
  },
  {
    path: '/health',
    tag: 'service',
    summary: 'Check that ids can be issued',
    description:
      '200 while the server can issue ids; 503 with the coded reason when it cannot (lease lost, clock behind its mark, closing). For load balancers and probes; needs no token.',
    params: {},
    answer: HEALTH_ANSWER.meta({ example: { status: 'ok' } }),
    open: true,
  },
  {
    path: '/metrics',
    tag: 'service',
    summary: 'Prometheus metrics',
    description:
      'Prometheus text exposition: ids issued, requests by route and status, latency, clock steps absorbed, build and machine info.',
    params: {},
    answer: z.string().meta({ description: 'Prometheus text exposition format.' }),
    produces: 'text/plain',
  },
  {
    path: '/api/snowflake/get/{key}',
    tag: 'leaf',
    summary: 'Issue one id (Meituan Leaf)',
    description:
      "Meituan Leaf's snowflake path: issues one id, answered as plain text (the decimal id alone): of the named generator `key` when the server has one, else of the server's own.",
    params: {
      // Leaf's snowflake mode ignores the key, and Leaf's clients send their own.
      key: param(
        z.string().regex(LEAF_KEY),
        "Leaf's business key: 1 to 128 of A-Z, a-z, 0-9, '_', '-' and '.'. A named generator's name selects it; any other key issues from the server's own generator.",
        'default',
        (raw, _name, { generators }): IdService | undefined => {
          if (LEAF_KEY.test(raw)) return generators.find(raw);
          const why = "the key must be 1 to 128 of A-Z, a-z, 0-9, '_', '-' and '.'";
          throw new VestaError('INVALID_ARGUMENT', why);
        },
      ),
    },
    answer: ID.meta({
      description: 'The id alone, as a decimal string (Leaf answers the same).',
      example: '2369919850714760191',
    }),
    produces: 'text/plain',
    issues: true,
    operationId: 'leafSnowflakeGet',
  },
  {
    path: '/segment/{key}',
    tag: 'segments',
    summary: 'Next number of a business key',
    description:
      "Segment mode: the next number of `key` (dense; never handed out twice across the servers of one segment store; increasing per server process: each worker of a cluster serves from ranges of its own, so numbers of different workers are unique but not in order), as a JSON string. SEGMENT_KEY_UNKNOWN (404) for a key the store has not, or a server without a segment store; 503 when the store cannot be reached and this server's buffered segments are used up.",
    params: { key: SEGMENT_KEY_PARAM },
    answer: z.object({ id: ID }),
    issues: true,
    errors: ['SEGMENT_KEY_UNKNOWN'],
    operationId: 'segment',
  },
  {
    path: '/api/segment/get/{key}',
    tag: 'leaf',
    summary: 'Next number of a key (Meituan Leaf)',
    description:
      "Meituan Leaf's segment path: the next number of `key`, answered as plain text (the decimal number alone), as Leaf answers it.",
    params: { key: SEGMENT_KEY_PARAM },
    answer: ID.meta({
      description: 'The number alone, as a decimal string (Leaf answers the same).',
    }),
    produces: 'text/plain',
    issues: true,
    errors: ['SEGMENT_KEY_UNKNOWN'],
    operationId: 'leafSegmentGet',
  },
  {
    path: '/api/snowflake/decodeSnowflakeId',
    tag: 'leaf',
    summary: 'Decode an id (Meituan Leaf)',
    description:
      "Meituan Leaf's decode path: the id's timestamp (Unix ms, then the date in UTC in parentheses), workerId and sequenceId, as strings, read with this server's layout.",
    params: {
      snowflakeId: param(ID, 'The id, as a decimal string.', '2369919850714760191', (raw) =>
        parseId(raw),
      ),
    },
    answer: z.object({
      timestamp: z.string().meta({
        description: 'Unix ms, then the date in UTC: `1569222555345(2019-09-23 07:09:15.345)`.',
      }),
      workerId: z.string().regex(/^[0-9]+$/),
      sequenceId: z.string().regex(/^[0-9]+$/),
    }),
    operationId: 'leafDecodeSnowflakeId',
  },
  {
    path: '/openapi.json',
    tag: 'service',
    summary: 'This OpenAPI document',
    description:
      'This OpenAPI 3 document, built from the same route table the server validates requests against.',
    params: {},
    answer: z.object({}),
  },
] as const satisfies readonly RestRoute[];

/** A path of the REST API. */
export type RestPath = (typeof REST_ROUTES)[number]['path'];

type ParamValues<R extends { readonly params: object }> = {
  readonly [K in keyof R['params']]: R['params'][K] extends RestParam<infer T> ? T : never;
};

/** The parameters of the route of `P`, as its handler gets them. */
export type ParamsOf<P extends RestPath> = ParamValues<
  Extract<(typeof REST_ROUTES)[number], { path: P }>
>;
