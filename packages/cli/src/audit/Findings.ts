/** Findings of one kind, as the report shows them: how many, and the first few. */
export interface FindingsReport<T> {
  readonly count: number;
  readonly examples: readonly T[];
}

/**
 * Counts findings of one kind and keeps the first `max` as examples (built only while there
 * is room, so a million findings cost a counter, not a million objects).
 */
export class Findings<T> {
  count = 0;
  readonly examples: T[] = [];

  constructor(private readonly max: number) {}

  /** Counts one finding; `example` builds its example when one is still kept. */
  add(example: () => T): void {
    this.count++;
    if (this.examples.length < this.max) this.examples.push(example());
  }

  /** The count and the examples, for the report. */
  report(): FindingsReport<T> {
    return { count: this.count, examples: [...this.examples] };
  }
}
