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
   * @default `machineIdRanges(layout).server.min` (924 for Vesta's layouts)
   */
  readonly serverMachineIdStart?: number;
  /** Named generators (`generator('orders')`), sharing this service's unless given their own. @default only `default` */
  readonly generators?: IdGeneratorsOptions;
}

/** The machine ids an embedded service may use. */
export function embeddedMachineIdRange(serverMachineIdStart: number): MachineIdRange {
  return { min: 0, max: serverMachineIdStart - 1 };
}
