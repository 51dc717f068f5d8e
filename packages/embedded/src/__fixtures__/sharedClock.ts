/** For tests: a wall clock shared between threads, that only the test moves. */
export interface SharedClock {
  /** The cell (Unix ms, 64-bit) that worker threads read (`issueOnSharedClockWorker.ts`). */
  readonly buffer: SharedArrayBuffer;
  /** The time now, as a service's `clock` option. */
  now(): number;
  /** Sets the time of every thread to `ms`. */
  set(ms: number): void;
}

/** For tests: a {@link SharedClock} standing at `ms`. */
export function sharedClock(ms: number): SharedClock {
  const buffer = new SharedArrayBuffer(8);
  const cell = new BigInt64Array(buffer);
  const set = (at: number): void => {
    Atomics.store(cell, 0, BigInt(at));
  };
  set(ms);
  return { buffer, now: () => Number(Atomics.load(cell, 0)), set };
}
