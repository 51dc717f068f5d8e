/** IPC requests awaiting replies by id; one unanswered in time settles with a fallback. */
export class PendingReplies<T> {
  #next = 0;
  readonly #waiting = new Map<number, (value: T) => void>();

  /** Sends a request with `send(id)`; resolves with its reply, or `fallback()` after `timeoutMs`. */
  ask(send: (id: number) => void, timeoutMs: number, fallback: () => T): Promise<T> {
    const id = this.#next++;
    return new Promise<T>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        resolve(fallback());
      }, timeoutMs);
      this.#waiting.set(id, (value) => {
        clearTimeout(timer);
        this.#waiting.delete(id);
        resolve(value);
      });
      try {
        send(id);
      } catch {
        // A closed channel: the fallback answers at the deadline.
      }
    });
  }

  /** Settles request `id` with `value`; a late or unknown reply is dropped. */
  settle(id: number, value: T): void {
    this.#waiting.get(id)?.(value);
  }
}
