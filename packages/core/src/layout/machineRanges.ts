import type { IdMetaWidths } from './IdMeta.js';

/** An inclusive range of machine ids. */
export interface MachineIdRange {
  readonly min: number;
  readonly max: number;
}

/** The first machine id of the server range (central and REST servers); below it, embedded. */
export const DEFAULT_SERVER_MACHINE_ID_START = 924;

export const EMBEDDED_MACHINE_ID_RANGE: MachineIdRange = Object.freeze({ min: 0, max: 923 });

export const SERVER_MACHINE_ID_RANGE: MachineIdRange = Object.freeze({ min: 924, max: 1023 });

/** Generation methods: the genMethod field of every id. */
export const GenMethod = { EMBEDDED: 0, CENTRAL_SERVER: 1, REST: 2, RESERVED: 3 } as const;
export type GenMethod = (typeof GenMethod)[keyof typeof GenMethod];

/** The machine ids of embedded instances and of (central and REST) servers under one layout. */
export interface MachineIdRanges {
  readonly embedded: MachineIdRange;
  readonly server: MachineIdRange;
}

/** With a genMethod field, Vesta's split; without one, servers get the top tenth (at least one id). */
export function machineIdRanges(
  widths: Pick<IdMetaWidths, 'machineBits' | 'genMethodBits'>,
): MachineIdRanges {
  if (widths.genMethodBits > 0) {
    return { embedded: EMBEDDED_MACHINE_ID_RANGE, server: SERVER_MACHINE_ID_RANGE };
  }
  const size = 2 ** widths.machineBits;
  const start = size - Math.max(1, Math.floor(size / 10));
  return Object.freeze({
    embedded: Object.freeze({ min: 0, max: start - 1 }),
    server: Object.freeze({ min: start, max: size - 1 }),
  });
}
