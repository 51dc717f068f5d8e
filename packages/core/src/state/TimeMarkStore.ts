/**
 * Where the time high-water mark lives between runs. `write` must be durable when it returns:
 * ids are issued up to the mark only after it is written.
 */
export interface TimeMarkStore {
  /** Whether marks survive the process (a memory store's do not). */
  readonly durable: boolean;
  /** The last mark written (Unix ms), or undefined when there is none. */
  read(): number | undefined;
  /** Writes a mark (Unix ms) durably. Throws STATE_DIR_UNAVAILABLE when it cannot. */
  write(markMs: number): void;
}
