import { ContainerModule } from 'inversify';
import type { IdMeta } from '../layout/IdMeta.js';
import { machineIdRanges, type MachineIdRange } from '../layout/machineRanges.js';
import { TOKENS } from '../tokens.js';

/**
 * The part of an id service of a mode that issues from the server range (`serverModeModule`,
 * `restModeModule`): its `genMethod`, and the server range of the bound layout (924-1023 for
 * Vesta's layouts, the top tenth of the machine field for the others), so a layout rebound by a
 * later module moves the range with it.
 *
 * @example
 * export const restModeModule = serverRangeModeModule(GenMethod.REST);
 */
export function serverRangeModeModule(genMethod: number): ContainerModule {
  return new ContainerModule(({ rebindSync }) => {
    rebindSync<number>(TOKENS.GenMethod).toConstantValue(genMethod);
    rebindSync<MachineIdRange>(TOKENS.MachineIdRange)
      .toResolvedValue((layout: IdMeta) => machineIdRanges(layout.widths).server, [TOKENS.IdMeta])
      .inSingletonScope();
  });
}
