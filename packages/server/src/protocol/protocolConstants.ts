/**
 * The protocol version this package speaks: 4 (3 and SEGMENT; 3 is 2 and GENERATE_UUID).
 * Servers also answer protocol 3 and 2 clients (the same frames, without the later ops) and
 * protocol 1 clients, for Vesta layouts only; the handshake refuses any other.
 */
export const PROTOCOL_VERSION = 4;

/** Bytes before a frame's payload: u32 length, u32 request id, u8 op. */
export const HEADER_BYTES = 9;

/** Bytes the length field counts that are not payload: request id and op. */
export const LENGTH_OVERHEAD = 5;

/** The largest auth token the handshake carries, in bytes. */
export const MAX_TOKEN_BYTES = 1024;

/** The largest request frame (length field included) a server accepts: the handshake's. */
export const MAX_REQUEST_FRAME_BYTES = HEADER_BYTES + 4 + MAX_TOKEN_BYTES;

/** The largest error message an error frame carries, in bytes. */
export const MAX_ERROR_MESSAGE_BYTES = 1024;

/** The largest payload a PING may carry (echoed back). */
export const MAX_PING_BYTES = 64;

/** Value of TRANSTIME's type byte that means "the server's own type". */
export const SERVER_TYPE = 0xff;
