import type { TimeMarkStore } from './TimeMarkStore.js';

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
