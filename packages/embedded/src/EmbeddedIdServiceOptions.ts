import type { IdGeneratorsOptions, IdServiceOptions, MachineIdRange } from '@vesta/core';

/**
 * Options of {@link createEmbeddedIdService}: the core's options less what the mode fixes
 * (genMethod 0, the embedded machine-id range), plus where that range ends.
 */
export interface EmbeddedIdServiceOptions extends Omit<
  IdServiceOptions,
  'genMethod' | 'machineIdRange'
> {
  /**
   * The first machine id of the server range: embedded instances use 0 .. this - 1.
   * @default 924 for Vesta's layouts; for layouts without a genMethod field, the first id of the
   * top tenth of the machine field (`machineIdRanges(layout).server.min`, 922 for 10 bits)
   */
  readonly serverMachineIdStart?: number;
  /**
   * Named generators (`generator('orders')`): names share this service's generator, so ids are
   * unique across all names, unless given a shape and machine id of their own.
   * @default only `default`, this service
   */
  readonly generators?: IdGeneratorsOptions;
}

/** The machine ids an embedded service may use. */
export function embeddedMachineIdRange(serverMachineIdStart: number): MachineIdRange {
  return { min: 0, max: serverMachineIdStart - 1 };
}
