import { codeOfAsync } from '@vesta/testkit';
import { modeModuleServices } from '@vesta/testkit/conformance';
import { describe, expect, it } from 'vitest';
import { embeddedModeModule } from './embeddedModeModule.js';

describe('embeddedModeModule', () => {
  const { build, twitterLayout } = modeModuleServices();

  it('alone fixes genMethod 0 and the embedded range 0-923', async () => {
    const service = await build({ machineId: 923 }, embeddedModeModule());
    expect(service.expId(await service.genId())).toMatchObject({ machine: 923, genMethod: 0 });
    expect(await codeOfAsync(() => build({ machineId: 924 }, embeddedModeModule()))).toBe(
      'MACHINE_ID_OUT_OF_RANGE',
    );
  });

  it('ends the range below serverMachineIdStart, checked against the bound layout', async () => {
    expect((await build({ machineId: 511 }, embeddedModeModule(512))).info().machine).toBe(511);
    expect(await codeOfAsync(() => build({ machineId: 512 }, embeddedModeModule(512)))).toBe(
      'MACHINE_ID_OUT_OF_RANGE',
    );
    expect(await codeOfAsync(() => build({ machineId: 1 }, embeddedModeModule(1024)))).toBe(
      'INVALID_OPTIONS',
    );
  });

  it('takes the range of a layout a user module binds: the lower nine tenths without a genMethod field', async () => {
    const service = await build({ machineId: 921 }, embeddedModeModule(), twitterLayout);
    expect(service.info().layout.genMethodBits).toBe(0);
    expect(service.expId(await service.genId()).machine).toBe(921);
    expect(
      await codeOfAsync(() => build({ machineId: 922 }, embeddedModeModule(), twitterLayout)),
    ).toBe('MACHINE_ID_OUT_OF_RANGE');
  });
});
