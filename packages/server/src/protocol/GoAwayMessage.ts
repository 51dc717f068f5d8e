import { allocFrame } from './Frame.js';
import { Op } from './Op.js';

/** GOAWAY: request id 0, no payload. The server is shutting down: send nothing new on this connection. */
export const GoAwayMessage = {
  encode(): Buffer {
    return allocFrame(0, Op.GOAWAY, 0);
  },
} as const;
