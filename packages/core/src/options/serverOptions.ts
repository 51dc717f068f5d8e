import { resolve } from 'node:path';
import { z } from 'zod';
import type { IdGeneratorsOptions } from '../generators/IdGeneratorsOptions.js';
import type { Logger } from '../logging/Logger.js';
import { defaultMaxConnections } from './defaultMaxConnections.js';
import {
  authTokenOption,
  hostOption,
  nonEmptyString,
  objectWith,
  portOption,
  wholeNumber,
} from './optionTypes.js';

/** Where a server keeps its time high-water mark unless told otherwise (under the working directory). */
export const DEFAULT_STATE_DIR = '.vesta-state';

/**
 * The options every server entry point shares, with the same safe defaults whichever server
 * and however it is started (the CLI, `startRestServer`, `startIdServer`): listen on loopback,
 * keep the time mark in `./.vesta-state` (a restart after a clock step back repeats no id;
 * `false` keeps it in memory), cap connections below the open-files limit, and log.
 *
 * @param defaultPort the server's own port (8080 REST, 7070 TCP)
 */
export function serverOptionsShape(defaultPort: number) {
  return {
    /** The address to listen on. @default '127.0.0.1' */
    host: hostOption.default('127.0.0.1').describe('address to listen on'),
    /** The port; 0 asks the OS for a free one. */
    port: portOption.default(defaultPort).describe('port to listen on (0: any free port)'),
    /** The state dir of the time mark, or false for memory only. @default '.vesta-state' */
    stateDir: z
      .union([nonEmptyString, z.literal(false)], {
        error: 'must be a path, or false to keep the mark in memory',
      })
      .default(DEFAULT_STATE_DIR)
      .describe('directory where the time high-water mark survives restarts'),
    /** A token clients must present: 1 to 1024 visible ASCII characters. @default none */
    authToken: authTokenOption
      .optional()
      .describe(
        'require this token from clients (REST: "Authorization: Bearer <token>"; TCP: in the handshake)',
      ),
    /** Connections open at once. @default 90% of the soft open-files limit (see defaultMaxConnections) */
    maxConnections: wholeNumber(1, 1_000_000).default(() => defaultMaxConnections()),
    /** Where the server logs. @default pino at level 'info' on stdout */
    logger: objectWith<Logger>('a Logger (info, warn, error)', 'info', 'warn', 'error').optional(),
    /** Named generators (checked in depth by `IdGenerators.create`). @default only `default` */
    generators: z
      .custom<IdGeneratorsOptions>((v) => typeof v === 'object' && v !== null, {
        error: 'must be an object: { names, onDemand, maxNames }',
      })
      .default({}),
  };
}

/** A state dir option as a path resolved against `cwd`, or undefined for memory only. */
export function resolveStateDir(
  stateDir: string | false,
  cwd: string = process.cwd(),
): string | undefined {
  return stateDir === false ? undefined : resolve(cwd, stateDir);
}
