/** One query parameter of a route: what the validator accepts and the OpenAPI document shows. */
export interface RestParam {
  readonly name: string;
  readonly required: boolean;
  readonly description: string;
  /**
   * 'id': a decimal string of an unsigned 64-bit id; 'whole': a whole number; 'type': 0, 1 or a
   * type name; 'key': a generator key (1 to 128 of A-Z, a-z, 0-9, '_', '-', '.').
   */
  readonly kind: 'id' | 'whole' | 'type' | 'key';
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

/**
 * Every route of the REST API, in one table: the app validates query parameters against it
 * (an unknown parameter is a 400) and the OpenAPI document is built from it. Java Vesta's
 * paths are kept.
 */
export const REST_ROUTES = [
  {
    path: '/genid',
    summary: 'Issues one id.',
    params: [],
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
    ],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/expid',
    summary: 'Decodes an id of either type and any genMethod into its fields and date.',
    params: [
      { name: 'id', required: true, description: 'The id, as a decimal string.', kind: 'id' },
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
      "Meituan Leaf's snowflake path: issues one id, answered as plain text (the decimal id alone). The key is validated but not yet used: every key issues from the one generator.",
    params: [],
    pathParam: {
      name: 'key',
      required: true,
      description:
        "Leaf's business key: 1 to 128 of A-Z, a-z, 0-9, '_', '-' and '.'. Not yet used (one generator for all keys).",
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
