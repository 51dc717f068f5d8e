import { StaticMachineIdProvider } from '@vesta/core';
import { machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { codeOfAsync } from '../codeOfAsync.js';
import { modeModuleServices } from './modeModuleServices.js';

/** What {@link describeServerModeModule} needs of a mode issuing from the server range. */
export interface ServerModeModuleHarness {
  /** The module's name, the specs' title (`serverModeModule`, `restModeModule`). */
  readonly name: string;
  /** The mode's module. */
  readonly module: ContainerModule;
  /** The genMethod the mode's ids record (1 for the central server, 2 for REST). */
  readonly genMethod: number;
}

/**
 * Declares the specs of a mode module that issues from the server range of the bound layout
 * (924-1023 for Vesta's layouts, the top tenth of the machine field for the others) under a
 * genMethod of its own: alone, beside a coordinator's provider module, and with a layout a user
 * module binds. Call it at the top level of a `*.spec.ts` file.
 */
export function describeServerModeModule(harness: ServerModeModuleHarness): void {
  const { name, module, genMethod } = harness;
  describe(name, () => {
    const { build, twitterLayout } = modeModuleServices();

    it(`alone fixes genMethod ${String(genMethod)} and the server range 924-1023`, async () => {
      const service = await build({ machineId: 924 }, module);
      expect(service.expId(await service.genId())).toMatchObject({ machine: 924, genMethod });
      expect(service.info().genMethod).toBe(genMethod);
      expect(await codeOfAsync(() => build({ machineId: 923 }, module))).toBe(
        'MACHINE_ID_OUT_OF_RANGE',
      );
    });

    it('takes its machine id from a provider module', async () => {
      const provider = machineIdProviderModule(new StaticMachineIdProvider(1000));
      const service = await build({}, module, provider);
      expect(service.expId(await service.genId())).toMatchObject({ machine: 1000, genMethod });
    });

    it('moves the range with a layout a user module binds: the top tenth without a genMethod field', async () => {
      const service = await build({ machineId: 922 }, module, twitterLayout);
      // The layout has no genMethod field: its ids record none.
      expect(service.info()).toMatchObject({ machine: 922, genMethod: 0 });
      expect(service.expId(await service.genId()).machine).toBe(922);
      expect(await codeOfAsync(() => build({ machineId: 921 }, module, twitterLayout))).toBe(
        'MACHINE_ID_OUT_OF_RANGE',
      );
    });
  });
}
