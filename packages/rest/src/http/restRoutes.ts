/** One query parameter of a route: what the validator accepts and the OpenAPI document shows. */
export interface RestParam {
  readonly name: string;
  readonly required: boolean;
  readonly description: string;
  /**
   * 'id': an id in the request's `format` (decimal by default); 'whole': a whole number;
   * 'type': 0, 1 or a type name; 'form': an id form's name; 'flag': `true` or `false`;
   * 'name': a generator name; 'key': a Leaf key (1 to 128 of A-Z, a-z, 0-9, '_', '-', '.');
   * 'segmentKey': a segment key (1 to 200 code points without control characters, lone
   * surrogates or noncharacters); 'uuidForm': a UUID form's name; 'instant': Unix ms or an
   * ISO-8601 date; 'uuid': a UUID in any of its forms.
   */
  readonly kind:
    | 'id'
    | 'whole'
    | 'type'
    | 'form'
    | 'flag'
    | 'name'
    | 'key'
    | 'segmentKey'
    | 'uuidForm'
    | 'instant'
    | 'uuid';
}

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

/** A group of the documentation. */
export type RestTag = (typeof REST_TAGS)[number]['name'];

/** One route of the REST API. */
export interface RestRoute {
  readonly path: string;
  /** The group it is listed under in the documentation (see {@link REST_TAGS}). */
  readonly tag: RestTag;
  /** A few words, as a title. */
  readonly summary: string;
  /** What it does and when to use it, in sentences. */
  readonly description: string;
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

const UUID_FORMAT_PARAM: RestParam = {
  name: 'format',
  required: false,
  description:
    "The form of the UUIDs: 'canonical' (default: RFC 9562's 8-4-4-4-12 lower-case hex), 'hex' (32 digits) or " +
    "'base32' (26 characters of Crockford's base 32, as a ULID). Each is fixed-width: string order is time order.",
  kind: 'uuidForm',
};

const COUNT_PARAM: RestParam = {
  name: 'count',
  required: true,
  description: "How many: 1 to the server's max batch.",
  kind: 'whole',
};

const SEGMENT_KEY_PARAM: RestParam = {
  name: 'key',
  required: true,
  description:
    'The business key (created in the segment store beforehand): 1 to 200 characters (code points) without control characters (C0, DEL, C1), lone surrogates or noncharacters, percent-encoded in the path (a space as %20, a slash as %2F); INVALID_ARGUMENT (400) otherwise, or for malformed percent-encoding.',
  kind: 'segmentKey',
};

/**
 * Every route of the REST API, in one table: the app validates query parameters against it
 * (an unknown parameter is a 400) and the OpenAPI document is built from it. Java Vesta's
 * paths are kept.
 */
export const REST_ROUTES = [
  {
    path: '/genid',
    tag: 'ids',
    summary: 'Issue one id',
    description:
      "Issues one id of the server's own generator, or of the named generator `key`, as a JSON string in `format`. Ids of one server increase strictly; a HEAD issues none.",
    params: [KEY_PARAM, FORMAT_PARAM, SCRAMBLED_PARAM],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/genids',
    tag: 'ids',
    summary: 'Issue a batch of ids',
    description:
      "Issues `count` ids, strictly increasing, in one answer. Batches share the server's capacity fairly between connections, so one greedy client cannot starve a `/genid` caller.",
    params: [COUNT_PARAM, KEY_PARAM, FORMAT_PARAM, SCRAMBLED_PARAM],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/genuuid',
    tag: 'ids',
    summary: 'Issue one UUIDv7',
    description:
      "Issues one RFC 9562 version 7 UUID from the same claims as the server's ids: its time, a counter and the server's machine id, so UUIDs are unique across the fleet by construction and increase strictly per server. A HEAD issues none.",
    params: [UUID_FORMAT_PARAM],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/genuuids',
    tag: 'ids',
    summary: 'Issue a batch of UUIDv7s',
    description:
      "Issues `count` UUIDv7s, strictly increasing, in one answer, sharing the server's capacity with id batches fairly.",
    params: [COUNT_PARAM, UUID_FORMAT_PARAM],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/expid',
    tag: 'codec',
    summary: 'Decode an id',
    description:
      'Decodes an id of either type and any genMethod into its fields (time, sequence, machine, genMethod, type, version) and the date it was issued.',
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
    path: '/expuuid',
    tag: 'codec',
    summary: 'Decode a UUID',
    description:
      "Decodes a UUID in any form (canonical, 32 hex digits, 26 base32 characters): its version and variant; a v7's time; and for a Vesta UUIDv7 (`vesta: true`) the counter, machine id, genMethod, id type and version bit it was issued under. A v7 of another issuer gives its time only.",
    params: [
      {
        name: 'uuid',
        required: true,
        description: 'The UUID, in any of its forms.',
        kind: 'uuid',
      },
    ],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/transtime',
    tag: 'codec',
    summary: 'Turn a time field into a date',
    description:
      'Turns a time field (units since the epoch: seconds for max-peak, ms for min-granularity) into the date it stands for.',
    params: [
      { name: 'time', required: true, description: 'Time units since the epoch.', kind: 'whole' },
      TYPE_PARAM,
    ],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/makeid',
    tag: 'codec',
    summary: 'Make an id from fields',
    description:
      "Encodes fields into an id; every field is range-checked against the layout (out of range is INVALID_ARGUMENT, never wrapped). Fields left out are the server's own.",
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
    path: '/bounds',
    tag: 'codec',
    summary: 'The ids and UUIDs of a time window',
    description:
      "For `WHERE id BETWEEN min AND max`: the smallest and largest id of the server's layout and version whose time unit starts in [from, to] (both inclusive), one range per genMethod in Vesta's layout (whose genMethod lies above the time), one for layouts whose time is the top field; and the smallest and largest UUIDv7 of the window. Ids are decimal strings.",
    params: [
      {
        name: 'from',
        required: true,
        description: "The window's first instant: Unix ms or ISO-8601 (`2026-11-27T00:00:00Z`).",
        kind: 'instant',
      },
      {
        name: 'to',
        required: true,
        description: "The window's last instant (inclusive): Unix ms or ISO-8601.",
        kind: 'instant',
      },
      {
        name: 'genMethod',
        required: false,
        description:
          'Only the ids of this genMethod (0-3). Default: every genMethod, a range each.',
        kind: 'whole',
      },
      TYPE_PARAM,
      {
        name: 'version',
        required: false,
        description: "Only the ids of this version. Default: the server's.",
        kind: 'whole',
      },
    ],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/info',
    tag: 'service',
    summary: 'Describe this server',
    description: 'Layout, machine id, genMethod, epoch and the date the time field runs out.',
    params: [],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/generators',
    tag: 'service',
    summary: 'List the named generators',
    description: 'The named generators: name, machine id, type and ids issued under each name.',
    params: [],
    open: false,
    produces: 'application/json',
  },
  {
    path: '/health',
    tag: 'service',
    summary: 'Check that ids can be issued',
    description:
      '200 while the server can issue ids; 503 with the coded reason when it cannot (lease lost, clock behind its mark, closing). For load balancers and probes; needs no token.',
    params: [],
    open: true,
    produces: 'application/json',
  },
  {
    path: '/metrics',
    tag: 'service',
    summary: 'Prometheus metrics',
    description:
      'Prometheus text exposition: ids issued, requests by route and status, latency, clock steps absorbed, build and machine info.',
    params: [],
    open: false,
    produces: 'text/plain',
  },
  {
    path: '/api/snowflake/get/{key}',
    tag: 'leaf',
    summary: 'Issue one id (Meituan Leaf)',
    description:
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
    path: '/segment/{key}',
    tag: 'segments',
    summary: 'Next number of a business key',
    description:
      "Segment mode: the next number of `key` (dense; never handed out twice across the servers of one segment store; increasing per server process: each worker of a cluster serves from ranges of its own, so numbers of different workers are unique but not in order), as a JSON string. SEGMENT_KEY_UNKNOWN (404) for a key the store has not, or a server without a segment store; 503 when the store cannot be reached and this server's buffered segments are used up.",
    params: [],
    pathParam: SEGMENT_KEY_PARAM,
    operationId: 'segment',
    open: false,
    produces: 'application/json',
  },
  {
    path: '/api/segment/get/{key}',
    tag: 'leaf',
    summary: 'Next number of a key (Meituan Leaf)',
    description:
      "Meituan Leaf's segment path: the next number of `key`, answered as plain text (the decimal number alone), as Leaf answers it.",
    params: [],
    pathParam: SEGMENT_KEY_PARAM,
    operationId: 'leafSegmentGet',
    open: false,
    produces: 'text/plain',
  },
  {
    path: '/api/snowflake/decodeSnowflakeId',
    tag: 'leaf',
    summary: 'Decode an id (Meituan Leaf)',
    description:
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
    tag: 'service',
    summary: 'This OpenAPI document',
    description:
      'This OpenAPI 3 document, built from the same route table the server validates requests against.',
    params: [],
    open: false,
    produces: 'application/json',
  },
] as const satisfies readonly RestRoute[];

/** A path of the REST API. */
export type RestPath = (typeof REST_ROUTES)[number]['path'];
