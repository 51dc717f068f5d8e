/** The default epoch: 2025-01-01T00:00:00.000Z. Max-peak ids run out 34 years later, in 2059. */
export const DEFAULT_EPOCH_MS = Date.UTC(2025, 0, 1);

/**
 * The epoch of Java Vesta's releases with a 2-bit genMethod: 2015-01-01T00:00:00+08:00.
 * Use it to decode and keep issuing ids compatible with an existing Java Vesta fleet.
 */
export const JAVA_VESTA_EPOCH_MS = 1420041600000;
