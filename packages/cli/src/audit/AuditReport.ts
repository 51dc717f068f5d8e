import type { AuditCheckReport } from './AuditChecks.js';

/** A value found more than once, as the report shows it. */
export interface DuplicateExample {
  /** The id as a decimal string, or the UUID canonical. */
  readonly id: string;
  /** How often it was found. */
  readonly times: number;
  /**
   * The lines it was found on (at most 10), when the input could be read again (a file);
   * absent for stdin and a query.
   */
  readonly lines?: readonly number[];
}

/** What `vesta audit` prints on stdout, as one JSON object. */
export interface AuditReport extends AuditCheckReport {
  /** Where the values came from: the file's path, `stdin` or `postgres`. */
  readonly source: string;
  /** The layout preset the ids were read with (`vesta-max-peak` reads both Vesta types). */
  readonly layout: string;
  readonly epoch: string;
  /** Values read (ids and UUIDs); unparseable lines are not among them. */
  readonly count: number;
  /** Values found more than once: `count` copies beyond the first, of `distinct` values. */
  readonly duplicates: {
    readonly count: number;
    readonly distinct: number;
    readonly examples: readonly DuplicateExample[];
  };
}
