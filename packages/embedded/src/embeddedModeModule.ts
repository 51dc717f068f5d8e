import { GenMethod, machineIdRanges, TOKENS, type IdMeta, type MachineIdRange } from '@vesta/core';
import { DEFAULT_SERVER_MACHINE_ID_START, checkOption, wholeNumber } from '@vesta/core/kit';
import { ContainerModule } from 'inversify';

/** The machine ids an embedded service may use. */
export function embeddedMachineIdRange(serverMachineIdStart: number): MachineIdRange {
  return { min: 0, max: serverMachineIdStart - 1 };
}

/** The embedded mode's part of an id service (genMethod 0, ids below the server range); load it after core's. */
export function embeddedModeModule(serverMachineIdStart?: number): ContainerModule {
  const range = ({ widths }: IdMeta): MachineIdRange => {
    // Where a layout's server range begins by default, and the largest start.
    const [start, max] =
      widths.genMethodBits === 0
        ? [machineIdRanges(widths).server.min, 2 ** widths.machineBits - 1]
        : [DEFAULT_SERVER_MACHINE_ID_START, 1023];
    const first = serverMachineIdStart ?? start;
    return embeddedMachineIdRange(checkOption(wholeNumber(1, max), 'serverMachineIdStart', first));
  };
  return new ContainerModule(({ rebindSync }) => {
    rebindSync<number>(TOKENS.GenMethod).toConstantValue(GenMethod.EMBEDDED);
    rebindSync<MachineIdRange>(TOKENS.MachineIdRange)
      .toResolvedValue(range, [TOKENS.IdMeta])
      .inSingletonScope();
  });
}
