/** 4 (3 and SEGMENT; 3 is 2 and GENERATE_UUID). Servers answer 1 to 4 (1 for Vesta layouts only). */
export const PROTOCOL_VERSION = 4;

/** Bytes before a frame's payload: u32 length, u32 request id, u8 op. */
export const HEADER_BYTES = 9;

/** What the length field counts beyond the payload: request id and op. */
export const LENGTH_OVERHEAD = 5;

export const MAX_TOKEN_BYTES = 1024;

/** The largest request frame a server accepts (length field included): the handshake's. */
export const MAX_REQUEST_FRAME_BYTES = HEADER_BYTES + 4 + MAX_TOKEN_BYTES;

export const MAX_ERROR_MESSAGE_BYTES = 1024;
export const MAX_PING_BYTES = 64;

/** TRANSTIME's type byte for "the server's own type". */
export const SERVER_TYPE = 0xff;

/** The op byte of a frame; an answer sets {@link RESPONSE_BIT}, GOAWAY (request id 0) says the server is leaving. */
export const Op = {
  HELLO: 0x01,
  GENERATE: 0x02,
  DECODE: 0x03,
  MAKE: 0x04,
  TRANSTIME: 0x05,
  INFO: 0x06,
  PING: 0x07,
  GENERATE_UUID: 0x08,
  SEGMENT: 0x09,
  GOAWAY: 0x7e,
  ERROR: 0xff,
} as const;

export const RESPONSE_BIT = 0x80;
