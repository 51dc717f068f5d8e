/**
 * 2^63 - 1, PostgreSQL's largest `bigint`, as a Vesta id: every bit but the version set
 * (min-granularity, genMethod 3, time, sequence and machine all ones), so `expId` decodes it.
 * 2^53 + 1 and above are what a `number` cannot hold.
 */
export const MAX_INT8_ID = 2n ** 63n - 1n;
