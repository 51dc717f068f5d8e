/** A wall clock: Unix milliseconds. Injected so tests can step it; defaults to `Date.now`. */
export type Clock = () => number;

/** The system wall clock. */
export const systemClock: Clock = () => Date.now();
