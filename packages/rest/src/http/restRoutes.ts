/** One query parameter of a route: what the validator accepts and the OpenAPI document shows. */
export interface RestParam {
  readonly name: string;
  readonly required: boolean;
  readonly description: string;
  /**
   * 'id': an id in the request's `format` (decimal by default); 'whole': a whole number;
   * 'type': 0, 1 or a type name; 'form': an id form's name; 'flag': `true` or `false`;
   * 'name': a generator name; 'key': a Leaf key (1 to 128 of A-Z, a-z, 0-9, '_', '-', '.').
   */
  readonly kind: 'id' | 'whole' | 'type' | 'form' | 'flag' | 'name' | 'key';
}

/** One route of the REST API. */
export interface RestRoute {
  readonly path: string;
  readonly summary: string;
  readonly params: readonly RestParam[];
  /** Answered without a token when auth is on. */
  readonly open: boolean;
  /** The response's media type. */
  readonly produces: 'application/json' | 'text/plain';
  /** The parameter in the path (`{name}` in `path`), if any. */
  readonly pathParam?: RestParam;
  /** The OpenAPI operation id. @default the path without its slash and `.json` */
  readonly operationId?: string;
}

const TYPE_PARAM: RestParam = {
  name: 'type',
  required: false,
  description:
    "The id type: 0 or 'max-peak' (seconds), 1 or 'min-granularity' (milliseconds). Default: the server's.",
  kind: 'type',
};

const FORMAT_PARAM: RestParam = {
  name: 'format',
  required: false,
  description:
    "The form of the ids: 'decimal' (default: unsigned), 'signed' (Java's long), 'hex' (16 lower-case digits), " +
    "'base32' (13 characters of Crockford's base 32) or 'base62' (11 characters of 0-9A-Za-z). " +
    "hex, base32 and base62 are fixed-width: their string order is the ids' order.",
  kind: 'form',
};

const SCRAMBLED_PARAM: RestParam = {
  name: 'scrambled',
  required: false,
  description:
    "true: the ids are scrambled with the server's scramble key (obfuscation: hides order, volume and time, " +
    'reversible with the key). Default false; true on a server without a key is INVALID_ARGUMENT.',
  kind: 'flag',
};

const KEY_PARAM: RestParam = {
  name: 'key',
  required: false,
  description:
    "The generator's name: 1 to 64 letters, digits, '.', '_' or '-'. Default: the server's own generator ('default'); ids are unique across all names.",
  kind: 'name',
};

/**
 * Every route of the REST API, in one table: the app validates query parameters against it
 * (an unknown parameter is a 400) and the OpenAPI document is built from it. Java Vesta's
 * paths are kept.
 */
export const REST_ROUTES = [
  {
    path: '/genid',
    summary: 'Issues one id.',
    params: [KEY_PARAM, FORMAT_PARAM, SCRAMBLED_PARAM],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/genids',
    summary: 'Issues `count` ids, strictly increasing.',
    params: [
      {
        name: 'count',
        required: true,
        description: "How many ids: 1 to the server's max batch.",
        kind: 'whole',
      },
      KEY_PARAM,
      FORMAT_PARAM,
      SCRAMBLED_PARAM,
    ],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/expid',
    summary: 'Decodes an id of either type and any genMethod into its fields and date.',
    params: [
      {
        name: 'id',
        required: true,
        description:
          "The id in the form `format` names (decimal by default; Java's negative longs are read as the ids they stand for); " +
          'forms are never guessed.',
        kind: 'id',
      },
      FORMAT_PARAM,
      SCRAMBLED_PARAM,
    ],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/transtime',
    summary: 'Turns a time field into the date it stands for.',
    params: [
      { name: 'time', required: true, description: 'Time units since the epoch.', kind: 'whole' },
      TYPE_PARAM,
    ],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/makeid',
    summary: 'Encodes fields into an id; every field is range-checked.',
    params: [
      { name: 'time', required: true, description: 'Time units since the epoch.', kind: 'whole' },
      { name: 'seq', required: true, description: 'Sequence within the time unit.', kind: 'whole' },
      {
        name: 'machine',
        required: false,
        description: "Machine id. Default: the server's.",
        kind: 'whole',
      },
      {
        name: 'genMethod',
        required: false,
        description: "Generation method 0-3. Default: the server's (2).",
        kind: 'whole',
      },
      TYPE_PARAM,
      {
        name: 'version',
        required: false,
        description: "Version bit. Default: the server's.",
        kind: 'whole',
      },
      FORMAT_PARAM,
      SCRAMBLED_PARAM,
    ],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/info',
    summary: 'Layout, machine id, genMethod, epoch and expiry date.',
    params: [],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/generators',
    summary: 'The named generators: name, machine id, type and ids issued under the name.',
    params: [],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/health',
    summary: 'Whether the server can issue ids now (200), and why not (503).',
    params: [],
    open: true,
    produces: 'application/json',
  },
  {
    path: '/metrics',
    summary: 'Prometheus metrics.',
    params: [],
    open: false,
    produces: 'text/plain',
  },
  {
    path: '/api/snowflake/get/{key}',
    summary:
      "Meituan Leaf's snowflake path: issues one id, answered as plain text (the decimal id alone): of the named generator `key` when the server has one, else of the server's own.",
    params: [],
    pathParam: {
      name: 'key',
      required: true,
      description:
        "Leaf's business key: 1 to 128 of A-Z, a-z, 0-9, '_', '-' and '.'. A named generator's name selects it; any other key issues from the server's own generator.",
      kind: 'key',
    },
    operationId: 'leafSnowflakeGet',
    open: false,
    produces: 'text/plain',
  },
  {
    path: '/api/snowflake/decodeSnowflakeId',
    summary:
      "Meituan Leaf's decode path: the id's timestamp (Unix ms, then the date in UTC in parentheses), workerId and sequenceId, as strings, read with this server's layout.",
    params: [
      {
        name: 'snowflakeId',
        required: true,
        description: 'The id, as a decimal string.',
        kind: 'id',
      },
    ],
    operationId: 'leafDecodeSnowflakeId',
    open: false,
    produces: 'application/json',
  },
  {
    path: '/openapi.json',
    summary: 'This OpenAPI 3 document.',
    params: [],
    open: false,
    produces: 'application/json',
  },
] as const satisfies readonly RestRoute[];

/** A path of the REST API. */
export type RestPath = (typeof REST_ROUTES)[number]['path'];
