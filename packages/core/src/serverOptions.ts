import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { IdGeneratorsOptions } from './generators/IdGenerators.js';
import type { Logger } from './logging/Logger.js';
import { authTokenOption, hostOption, nonEmptyString } from './options/optionTypes.js';
import { objectWith, portOption, wholeNumber } from './options/optionTypes.js';

/** Where a server keeps its time high-water mark unless told otherwise (under the working directory). */
export const DEFAULT_STATE_DIR = '.vesta-state';

const GENERATORS = 'an object: { names, onDemand, maxNames }';

/**
 * The options every server entry point shares, with the same safe defaults.
 * @param defaultPort the server's own port (8080 REST, 7070 TCP)
 */
export function serverOptionsShape(defaultPort: number) {
  return {
    host: hostOption.default('127.0.0.1').describe('address to listen on'),
    port: portOption.default(defaultPort).describe('port to listen on (0: any free port)'),
    stateDir: z
      .union([nonEmptyString, z.literal(false)], {
        error: 'must be a path, or false to keep the mark in memory',
      })
      .default(DEFAULT_STATE_DIR)
      .describe('directory where the time high-water mark survives restarts'),
    authToken: authTokenOption
      .optional()
      .describe(
        'require this token from clients (REST: "Authorization: Bearer <token>"; TCP: in the handshake)',
      ),
    /** Connections open at once. @default {@link defaultMaxConnections} */
    maxConnections: wholeNumber(1, 1_000_000).default(() => defaultMaxConnections()),
    /** Where the server logs. @default pino at level 'info' on stdout */
    logger: objectWith<Logger>('a Logger (info, warn, error)', 'info', 'warn', 'error').optional(),
    /** Named generators (checked in depth by `IdGenerators.create`). @default only `default` */
    generators: objectWith<IdGeneratorsOptions>(GENERATORS).default({}),
  };
}

/** A state dir option as a path resolved against `cwd`, or undefined for memory only. */
export function resolveStateDir(stateDir: string | false, cwd = process.cwd()): string | undefined {
  return stateDir === false ? undefined : resolve(cwd, stateDir);
}

/** The default connection cap: under the open-files limit (90%, 64 below), so a flood ends before EMFILE. */
export function defaultMaxConnections(limitsText?: string): number {
  let text = limitsText;
  try {
    text ??= readFileSync('/proc/self/limits', 'utf8');
  } catch {
    text = '';
  }
  const soft = Number(/^Max open files\s+(\d+)\s/m.exec(text)?.[1] ?? 1024);
  return Math.max(16, Math.min(65_536, Math.floor(soft * 0.9), soft - 64));
}
