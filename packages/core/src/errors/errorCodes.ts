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

/** Each code's number in TCP error frames, HTTP status, gRPC status and description. */
// prettier-ignore
const ANSWERS = {
  INVALID_ARGUMENT: [1, 400, 'INVALID_ARGUMENT', 'An argument is missing, malformed or out of range.'],
  INVALID_OPTIONS: [2, 500, 'FAILED_PRECONDITION', 'An option is missing, malformed or out of range (raised at construction).'],
  INVALID_LAYOUT: [3, 500, 'FAILED_PRECONDITION', 'A custom id layout has a field of an impossible width, or is wider than 64 bits.'],
  MACHINE_ID_OUT_OF_RANGE: [4, 500, 'INTERNAL', 'The machine id lies outside the range of this mode or layout.'],
  MACHINE_ID_NOT_FOUND: [5, 500, 'INTERNAL', 'No machine id could be derived for this host (not in the IP list, no IPv4 address).'],
  MACHINE_ID_EXHAUSTED: [6, 503, 'UNAVAILABLE', 'Every machine id of the range is held by a live instance.'],
  MACHINE_ID_LEASE_LOST: [7, 503, 'UNAVAILABLE', 'The machine id lease could not be confirmed recently; issuing is fenced.'],
  CLOCK_MOVED_BACKWARDS: [8, 503, 'UNAVAILABLE', 'The clock stepped back by more than the tolerance.'],
  CLOCK_BEHIND_HIGH_WATER_MARK: [9, 503, 'UNAVAILABLE', 'At start-up the clock is too far behind the time already used.'],
  CLOCK_BEFORE_EPOCH: [10, 503, 'UNAVAILABLE', 'The clock reads a time before the epoch of the layout.'],
  CLOCK_STALLED: [11, 503, 'UNAVAILABLE', 'The clock did not reach the next time unit while the sequence was used up.'],
  CLOCK_OUT_OF_SYNC: [12, 503, 'UNAVAILABLE', "This host's clock differs from the fleet's by more than the allowed skew."],
  TIME_OVERFLOW: [13, 503, 'UNAVAILABLE', 'The time field of the layout has run out; the service refuses to wrap.'],
  STATE_DIR_UNAVAILABLE: [14, 503, 'UNAVAILABLE', 'The state directory could not be read or written durably.'],
  SERVICE_CLOSED: [15, 503, 'UNAVAILABLE', 'The service was closed.'],
  UNAUTHORIZED: [16, 401, 'UNAUTHENTICATED', 'A valid auth token is required.'],
  NOT_FOUND: [17, 404, 'NOT_FOUND', 'No such route or operation.'],
  METHOD_NOT_ALLOWED: [18, 405, 'UNIMPLEMENTED', 'The route exists but not for this method.'],
  PAYLOAD_TOO_LARGE: [19, 413, 'RESOURCE_EXHAUSTED', 'A request, frame or query exceeds its size limit.'],
  PROTOCOL_ERROR: [20, 400, 'INVALID_ARGUMENT', 'A malformed, truncated, oversized or unknown frame.'],
  HANDSHAKE_MISMATCH: [21, 502, 'UNAVAILABLE', 'A server answered with another protocol version, layout or epoch than expected.'],
  TIMEOUT: [22, 504, 'DEADLINE_EXCEEDED', 'No answer in time.'],
  NO_SERVER_AVAILABLE: [23, 503, 'UNAVAILABLE', 'No id server answered and no fallback is configured.'],
  ZOOKEEPER_UNAVAILABLE: [24, 503, 'UNAVAILABLE', 'ZooKeeper could not be reached in time.'],
  INTERNAL_ERROR: [25, 500, 'INTERNAL', 'An unexpected failure; details are logged, not returned.'],
  OVERLOADED: [26, 503, 'RESOURCE_EXHAUSTED', 'Demand exceeds what the layout can issue in time, or too many requests wait; retry after the time given.'],
  LISTEN_FAILED: [27, 500, 'INTERNAL', 'A server could not listen on its address (port in use, no permission).'],
  MACHINE_ID_IN_USE: [28, 503, 'UNAVAILABLE', 'A live instance on this host already issues ids under this machine id and layout.'],
  STATE_MISMATCH: [29, 500, 'INTERNAL', 'The state directory holds a time mark written under other id options (epoch, layout, ...) that could make ids repeat.'],
  STATE_LOCKED: [30, 503, 'UNAVAILABLE', 'Another thread held the time-mark writer lock of the shared state for too long; retry.'],
  COORDINATOR_UNAVAILABLE: [31, 503, 'UNAVAILABLE', 'The coordinator (Redis, PostgreSQL, etcd) of machine ids or segments could not be reached in time.'],
  STATE_DIR_UNSAFE: [32, 500, 'INTERNAL', "A directory or file of the service's state is a symbolic link, owned by another user or open to other users; it is refused, never read or written."],
  REQUEST_TIMEOUT: [33, 408, 'DEADLINE_EXCEEDED', 'The client did not send a whole request in time; the connection is closed.'],
  PACKAGE_MISSING: [34, 500, 'INTERNAL', 'An optional package the options need is not installed (e.g. a coordinator client); the message names the npm install to run.'],
  COORDINATOR_NOT_NEW: [35, 409, 'ALREADY_EXISTS', 'A coordinator store holds history (an allocation era, an allocation, a key mapping, a live holder), so it cannot be declared new (`vesta machine-ids init`); the message names what was found.'],
  UNKNOWN_GENERATOR: [40, 404, 'NOT_FOUND', 'No generator has this name (and names are not created on demand).'],
  SEGMENT_KEY_UNKNOWN: [41, 404, 'NOT_FOUND', 'No segment key has this name in the segment store (keys are created explicitly).'],
  SEGMENT_SEQUENCE_OVERFLOW: [42, 503, 'UNAVAILABLE', "A business number's sequence outgrew its template's width in this period, or a segment key ran out (its next range would pass 2^63 - 1); it never wraps."],
} as const satisfies Record<string, readonly [number, number, GrpcStatusName, string]>;

interface ErrorCodeInfo {
  readonly wire: number;
  readonly status: number;
  readonly grpc: GrpcStatusName;
  readonly description: string;
}

/** Every stable error code with its TCP `wire` number, HTTP `status` and `grpc` status. */
export const ERROR_CODES = Object.freeze(
  Object.fromEntries(
    Object.entries(ANSWERS).map(([code, [wire, status, grpc, description]]) => [
      code,
      Object.freeze({ wire, status, grpc, description }),
    ]),
  ),
) as Readonly<Record<VestaErrorCode, ErrorCodeInfo>>;

export type VestaErrorCode = keyof typeof ANSWERS;

/** Whether a string is one of the project's error codes. */
export function isVestaErrorCode(value: unknown): value is VestaErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

const CODE_OF_WIRE: ReadonlyMap<number, VestaErrorCode> = new Map(
  Object.entries(ANSWERS).map(([code, [wire]]) => [wire, code as VestaErrorCode]),
);

/** The HTTP status of an error code: every HTTP answer reads this one table. */
export function statusOf(code: VestaErrorCode): number {
  return ERROR_CODES[code].status;
}

/** The number of an error code in the TCP protocol's error frames. */
export function wireOf(code: VestaErrorCode): number {
  return ERROR_CODES[code].wire;
}

/** The error code of a wire number, or undefined for a number this version does not know. */
export function codeOfWire(wire: number): VestaErrorCode | undefined {
  return CODE_OF_WIRE.get(wire);
}
