/** The logging the services do: a pino logger fits as it is. */
export interface Logger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  debug?(fields: Record<string, unknown>, message: string): void;
  /** Whether lines of `level` are written (pino's). */
  isLevelEnabled?(level: string): boolean;
}

/** Warnings and errors to stderr, info dropped. */
export const consoleLogger: Logger = {
  info() {},
  warn: (fields, message) => console.warn(`[vesta] ${message}`, fields),
  error: (fields, message) => console.error(`[vesta] ${message}`, fields),
};

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
