import {
  GenMethod,
  machineIdRanges,
  TOKENS,
  type IdMeta,
  type IdMetaWidths,
  type MachineIdRange,
} from '@vesta/core';
import { DEFAULT_SERVER_MACHINE_ID_START, checkOption, wholeNumber } from '@vesta/core/kit';
import { ContainerModule } from 'inversify';
import { embeddedMachineIdRange } from './EmbeddedIdServiceOptions.js';

/** Where a layout's server range begins by default, and the largest `serverMachineIdStart`. */
function embeddedServerRange(widths: Pick<IdMetaWidths, 'machineBits' | 'genMethodBits'>): {
  start: number;
  max: number;
} {
  if (widths.genMethodBits === 0) {
    return { start: machineIdRanges(widths).server.min, max: 2 ** widths.machineBits - 1 };
  }
  return { start: DEFAULT_SERVER_MACHINE_ID_START, max: 1023 };
}

/**
 * The embedded mode's part of an id service: genMethod 0, machine ids below the bound layout's
 * server range (or `serverMachineIdStart`). Load it after core's module.
 */
export function embeddedModeModule(serverMachineIdStart?: number): ContainerModule {
  return new ContainerModule(({ rebindSync }) => {
    rebindSync<number>(TOKENS.GenMethod).toConstantValue(GenMethod.EMBEDDED);
    rebindSync<MachineIdRange>(TOKENS.MachineIdRange)
      .toResolvedValue(
        (layout: IdMeta) => {
          const server = embeddedServerRange(layout.widths);
          const start = serverMachineIdStart ?? server.start;
          checkOption(wholeNumber(1, server.max), 'serverMachineIdStart', start);
          return embeddedMachineIdRange(start);
        },
        [TOKENS.IdMeta],
      )
      .inSingletonScope();
  });
}
