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

/**
 * Where the server range of a layout begins by default (924 for Vesta's layouts, the top tenth
 * of the machine field for the others: `machineIdRanges(layout).server.min`) and the largest id
 * `serverMachineIdStart` may name (1023 for Vesta's, the field's end for the others).
 */
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
 * The embedded mode's part of an id service: genMethod 0, and the machine ids below the server
 * range of the bound layout (0-923 for Vesta's layouts, the lower nine tenths of the machine
 * field for the others), or below `serverMachineIdStart` when given (checked against the bound
 * layout: INVALID_OPTIONS outside 1 to its server range's end). Load it after core's module:
 * `createIdService(options, embeddedModeModule())`.
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
