import { GenMethod, machineIdRanges, TOKENS, type IdMeta, type MachineIdRange } from '@vesta/core';
import { ContainerModule } from 'inversify';

/**
 * The central server mode's part of an id service: genMethod 1, and the server range of the bound layout
 * (924-1023 for Vesta's layouts, the top tenth of the machine field for the others), so a
 * layout rebound by a later module moves the range with it. Load it after core's module:
 * `createIdService(options, serverModeModule)`.
 */
export const serverModeModule = new ContainerModule(({ rebindSync }) => {
  rebindSync<number>(TOKENS.GenMethod).toConstantValue(GenMethod.CENTRAL_SERVER);
  rebindSync<MachineIdRange>(TOKENS.MachineIdRange)
    .toResolvedValue((layout: IdMeta) => machineIdRanges(layout.widths).server, [TOKENS.IdMeta])
    .inSingletonScope();
});
