/** gRPC's status codes (google.rpc.Code), by name: the `grpc` column of {@link ERROR_CODES}. */
export const GRPC_STATUS = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** A gRPC status a Vesta error code answers with. */
export type GrpcStatusName = keyof typeof GRPC_STATUS;

/**
 * Every error code of the project, in one place, with its answer at every door. Codes are
 * stable: clients match on them. `wire` is the code's number in the TCP protocol's error frames;
 * `status` its HTTP status; `grpc` its gRPC status (as Google's APIs map HTTP statuses, with
 * RESOURCE_EXHAUSTED for "slow down" and FAILED_PRECONDITION for what this server's
 * configuration cannot serve).
 */
export const ERROR_CODES = {
  INVALID_ARGUMENT: {
    wire: 1,
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    description: 'An argument is missing, malformed or out of range.',
  },
  INVALID_OPTIONS: {
    wire: 2,
    status: 500,
    grpc: 'FAILED_PRECONDITION',
    description: 'An option is missing, malformed or out of range (raised at construction).',
  },
  INVALID_LAYOUT: {
    wire: 3,
    status: 500,
    grpc: 'FAILED_PRECONDITION',
    description: 'A custom id layout has a field of an impossible width, or is wider than 64 bits.',
  },
  MACHINE_ID_OUT_OF_RANGE: {
    wire: 4,
    status: 500,
    grpc: 'INTERNAL',
    description: 'The machine id lies outside the range of this mode or layout.',
  },
  MACHINE_ID_NOT_FOUND: {
    wire: 5,
    status: 500,
    grpc: 'INTERNAL',
    description:
      'No machine id could be derived for this host (not in the IP list, no IPv4 address).',
  },
  MACHINE_ID_EXHAUSTED: {
    wire: 6,
    status: 503,
    grpc: 'UNAVAILABLE',
    description: 'Every machine id of the range is held by a live instance.',
  },
  MACHINE_ID_LEASE_LOST: {
    wire: 7,
    status: 503,
    grpc: 'UNAVAILABLE',
    description: 'The machine id lease could not be confirmed recently; issuing is fenced.',
  },
  CLOCK_MOVED_BACKWARDS: {
    wire: 8,
    status: 503,
    grpc: 'UNAVAILABLE',
    description: 'The clock stepped back by more than the tolerance.',
  },
  CLOCK_BEHIND_HIGH_WATER_MARK: {
    wire: 9,
    status: 503,
    grpc: 'UNAVAILABLE',
    description: 'At start-up the clock is too far behind the time already used.',
  },
  CLOCK_BEFORE_EPOCH: {
    wire: 10,
    status: 503,
    grpc: 'UNAVAILABLE',
    description: 'The clock reads a time before the epoch of the layout.',
  },
  CLOCK_STALLED: {
    wire: 11,
    status: 503,
    grpc: 'UNAVAILABLE',
    description: 'The clock did not reach the next time unit while the sequence was used up.',
  },
  CLOCK_OUT_OF_SYNC: {
    wire: 12,
    status: 503,
    grpc: 'UNAVAILABLE',
    description: "This host's clock differs from the fleet's by more than the allowed skew.",
  },
  TIME_OVERFLOW: {
    wire: 13,
    status: 503,
    grpc: 'UNAVAILABLE',
    description: 'The time field of the layout has run out; the service refuses to wrap.',
  },
  STATE_DIR_UNAVAILABLE: {
    wire: 14,
    status: 503,
    grpc: 'UNAVAILABLE',
    description: 'The state directory could not be read or written durably.',
  },
  SERVICE_CLOSED: {
    wire: 15,
    status: 503,
    grpc: 'UNAVAILABLE',
    description: 'The service was closed.',
  },
  UNAUTHORIZED: {
    wire: 16,
    status: 401,
    grpc: 'UNAUTHENTICATED',
    description: 'A valid auth token is required.',
  },
  NOT_FOUND: {
    wire: 17,
    status: 404,
    grpc: 'NOT_FOUND',
    description: 'No such route or operation.',
  },
  METHOD_NOT_ALLOWED: {
    wire: 18,
    status: 405,
    grpc: 'UNIMPLEMENTED',
    description: 'The route exists but not for this method.',
  },
  PAYLOAD_TOO_LARGE: {
    wire: 19,
    status: 413,
    grpc: 'RESOURCE_EXHAUSTED',
    description: 'A request, frame or query exceeds its size limit.',
  },
  PROTOCOL_ERROR: {
    wire: 20,
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    description: 'A malformed, truncated, oversized or unknown frame.',
  },
  HANDSHAKE_MISMATCH: {
    wire: 21,
    status: 502,
    grpc: 'UNAVAILABLE',
    description: 'A server answered with another protocol version, layout or epoch than expected.',
  },
  TIMEOUT: { wire: 22, status: 504, grpc: 'DEADLINE_EXCEEDED', description: 'No answer in time.' },
  NO_SERVER_AVAILABLE: {
    wire: 23,
    status: 503,
    grpc: 'UNAVAILABLE',
    description: 'No id server answered and no fallback is configured.',
  },
  ZOOKEEPER_UNAVAILABLE: {
    wire: 24,
    status: 503,
    grpc: 'UNAVAILABLE',
    description: 'ZooKeeper could not be reached in time.',
  },
  INTERNAL_ERROR: {
    wire: 25,
    status: 500,
    grpc: 'INTERNAL',
    description: 'An unexpected failure; details are logged, not returned.',
  },
  OVERLOADED: {
    wire: 26,
    status: 503,
    grpc: 'RESOURCE_EXHAUSTED',
    description:
      'Demand exceeds what the layout can issue in time, or too many requests wait; retry after the time given.',
  },
  LISTEN_FAILED: {
    wire: 27,
    status: 500,
    grpc: 'INTERNAL',
    description: 'A server could not listen on its address (port in use, no permission).',
  },
  MACHINE_ID_IN_USE: {
    wire: 28,
    status: 503,
    grpc: 'UNAVAILABLE',
    description:
      'A live instance on this host already issues ids under this machine id and layout.',
  },
  STATE_MISMATCH: {
    wire: 29,
    status: 500,
    grpc: 'INTERNAL',
    description:
      'The state directory holds a time mark written under other id options (epoch, layout, ...) that could make ids repeat.',
  },
  STATE_LOCKED: {
    wire: 30,
    status: 503,
    grpc: 'UNAVAILABLE',
    description:
      'Another thread held the time-mark writer lock of the shared state for too long; retry.',
  },
  COORDINATOR_UNAVAILABLE: {
    wire: 31,
    status: 503,
    grpc: 'UNAVAILABLE',
    description:
      'The coordinator (Redis, PostgreSQL, etcd) of machine ids or segments could not be reached in time.',
  },
  STATE_DIR_UNSAFE: {
    wire: 32,
    status: 500,
    grpc: 'INTERNAL',
    description:
      "A directory or file of the service's state is a symbolic link, owned by another user or open to other users; it is refused, never read or written.",
  },
  REQUEST_TIMEOUT: {
    wire: 33,
    status: 408,
    grpc: 'DEADLINE_EXCEEDED',
    description: 'The client did not send a whole request in time; the connection is closed.',
  },
  PACKAGE_MISSING: {
    wire: 34,
    status: 500,
    grpc: 'INTERNAL',
    description:
      'An optional package the options need is not installed (e.g. a coordinator client); the message names the npm install to run.',
  },
  COORDINATOR_NOT_NEW: {
    wire: 35,
    status: 409,
    grpc: 'ALREADY_EXISTS',
    description:
      'A coordinator store holds history (an allocation era, an allocation, a key mapping, a live holder), so it cannot be declared new (`vesta machine-ids init`); the message names what was found.',
  },
  UNKNOWN_GENERATOR: {
    wire: 40,
    status: 404,
    grpc: 'NOT_FOUND',
    description: 'No generator has this name (and names are not created on demand).',
  },
  SEGMENT_KEY_UNKNOWN: {
    wire: 41,
    status: 404,
    grpc: 'NOT_FOUND',
    description: 'No segment key has this name in the segment store (keys are created explicitly).',
  },
  SEGMENT_SEQUENCE_OVERFLOW: {
    wire: 42,
    status: 503,
    grpc: 'UNAVAILABLE',
    description:
      "A business number's sequence outgrew its template's width in this period, or a segment key ran out (its next range would pass 2^63 - 1); it never wraps.",
  },
} as const satisfies Record<
  string,
  { wire: number; status: number; grpc: GrpcStatusName; description: string }
>;

/** A stable error code. */
export type VestaErrorCode = keyof typeof ERROR_CODES;

/** Whether a string is one of the project's error codes. */
export function isVestaErrorCode(value: unknown): value is VestaErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}
