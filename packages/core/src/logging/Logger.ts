/** The logging the services do: a pino logger fits as it is. */
export interface Logger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  /** Debug lines (the REST access log); a logger without it drops them. */
  debug?(fields: Record<string, unknown>, message: string): void;
  /** Whether lines of `level` are written (pino's); without it, a logger with `debug` writes them. */
  isLevelEnabled?(level: string): boolean;
}

/** The default logger of the library: warnings and errors to stderr, info dropped. */
export const consoleLogger: Logger = {
  info() {},
  warn(fields, message) {
    console.warn(`[vesta] ${message}`, fields);
  },
  error(fields, message) {
    console.error(`[vesta] ${message}`, fields);
  },
};

/** A logger that drops everything. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
