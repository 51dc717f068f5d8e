/** Where the time high-water mark lives between runs. */
export interface TimeMarkStore {
  /** Whether marks survive the process. */
  readonly durable: boolean;
  /** The last mark written (Unix ms), or undefined when there is none. */
  read(): number | undefined;
  /** Writes a mark (Unix ms) durably. Throws STATE_DIR_UNAVAILABLE when it cannot. */
  write(markMs: number): void;
}

/** A mark kept in memory only: the default when no state directory is configured. */
export class MemoryTimeMarkStore implements TimeMarkStore {
  readonly durable = false;
  #markMs: number | undefined;

  read(): number | undefined {
    return this.#markMs;
  }

  write(markMs: number): void {
    this.#markMs = markMs;
  }
}

/** Several stores kept as one: a mark is written to each, and the highest one read back. */
export class CompositeTimeMarkStore implements TimeMarkStore {
  readonly durable: boolean;

  constructor(private readonly stores: readonly TimeMarkStore[]) {
    this.durable = stores.some((store) => store.durable);
  }

  read(): number | undefined {
    let markMs: number | undefined;
    for (const store of this.stores) {
      const read = store.read();
      if (read !== undefined) markMs = Math.max(markMs ?? 0, read);
    }
    return markMs;
  }

  write(markMs: number): void {
    for (const store of this.stores) store.write(markMs);
  }
}
