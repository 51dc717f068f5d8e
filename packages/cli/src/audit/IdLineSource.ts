/** Receives one line of input: its text (trimmed, never empty) and its 1-based line number. */
export type IdLineHandler = (text: string, line: number) => void;

/**
 * Where `vesta audit` reads its ids: a function that hands every non-blank line to `onLine`, in
 * input order, and resolves once the input is over. `rereadable` sources (a file) can be read
 * again, for the lines of the duplicates found; a stream (stdin) or a query cannot.
 */
export interface IdLineSource {
  /** What the report names as the input (`stdin`, the file's path, `postgres`). */
  readonly name: string;
  readonly rereadable: boolean;
  read(onLine: IdLineHandler): Promise<void>;
}
