import type { TimeMarkStore } from './TimeMarkStore.js';

/** Several stores kept as one: a mark is written to each, and the highest one read back. */
export class CompositeTimeMarkStore implements TimeMarkStore {
  readonly durable: boolean;
  readonly #stores: readonly TimeMarkStore[];

  constructor(stores: readonly TimeMarkStore[]) {
    this.#stores = stores;
    this.durable = stores.some((store) => store.durable);
  }

  read(): number | undefined {
    let markMs: number | undefined;
    for (const store of this.#stores) {
      const read = store.read();
      if (read !== undefined) markMs = Math.max(markMs ?? 0, read);
    }
    return markMs;
  }

  write(markMs: number): void {
    for (const store of this.#stores) store.write(markMs);
  }
}
