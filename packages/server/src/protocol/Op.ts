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
export type Op = (typeof Op)[keyof typeof Op];

export const RESPONSE_BIT = 0x80;

/** The names of the request ops, for logs and metrics. */
export const OP_NAMES: Readonly<Record<number, string>> = Object.freeze({
  [Op.HELLO]: 'hello',
  [Op.GENERATE]: 'generate',
  [Op.DECODE]: 'decode',
  [Op.MAKE]: 'make',
  [Op.TRANSTIME]: 'transtime',
  [Op.INFO]: 'info',
  [Op.PING]: 'ping',
  [Op.GENERATE_UUID]: 'genuuid',
  [Op.SEGMENT]: 'segment',
});
