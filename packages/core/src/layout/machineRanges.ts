/** An inclusive range of machine ids. */
export interface MachineIdRange {
  readonly min: number;
  readonly max: number;
}

/** The first machine id of the server range (central and REST servers); below it, embedded. */
export const DEFAULT_SERVER_MACHINE_ID_START = 924;

/** Machine ids 0-923: embedded instances. */
export const EMBEDDED_MACHINE_ID_RANGE: MachineIdRange = Object.freeze({ min: 0, max: 923 });

/** Machine ids 924-1023: central and REST servers. */
export const SERVER_MACHINE_ID_RANGE: MachineIdRange = Object.freeze({ min: 924, max: 1023 });

/** Generation methods: the genMethod field of every id. */
export const GenMethod = { EMBEDDED: 0, CENTRAL_SERVER: 1, REST: 2, RESERVED: 3 } as const;
export type GenMethod = (typeof GenMethod)[keyof typeof GenMethod];
