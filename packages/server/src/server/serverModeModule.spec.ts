import {
  createIdService,
  StaticMachineIdProvider,
  TOKENS,
  type IdService,
  type MachineIdProvider,
} from '@vesta/core';
import { layoutPreset } from '@vesta/core/kit';
import { codeOfAsync } from '@vesta/testkit';
import { ContainerModule } from 'inversify';
import { afterEach, describe, expect, it } from 'vitest';
import { serverModeModule } from './serverModeModule.js';

const clock = (): number => Date.UTC(2026, 2, 3);
const silent = { info() {}, warn() {}, error() {} };
const open: IdService[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((service) => service.close()));
});

async function build(
  options: { machineId?: number },
  ...modules: ContainerModule[]
): Promise<IdService> {
  const service = await createIdService({ ...options, clock, logger: silent }, ...modules);
  open.push(service);
  return service;
}

const twitterLayout = new ContainerModule(({ rebindSync }) => {
  rebindSync(TOKENS.IdMeta).toConstantValue(layoutPreset('twitter').layout);
});

describe('serverModeModule', () => {
  it('alone fixes genMethod 1 and the server range 924-1023', async () => {
    const service = await build({ machineId: 924 }, serverModeModule);
    expect(service.expId(await service.genId())).toMatchObject({ machine: 924, genMethod: 1 });
    expect(service.info().genMethod).toBe(1);
    expect(await codeOfAsync(() => build({ machineId: 923 }, serverModeModule))).toBe(
      'MACHINE_ID_OUT_OF_RANGE',
    );
  });

  it('takes its machine id from a provider module', async () => {
    const provider = new ContainerModule(({ bind }) => {
      bind<MachineIdProvider>(TOKENS.MachineIdProvider).toConstantValue(
        new StaticMachineIdProvider(1000),
      );
    });
    const service = await build({}, serverModeModule, provider);
    expect(service.expId(await service.genId())).toMatchObject({ machine: 1000, genMethod: 1 });
  });

  it('moves the range with a layout a user module binds: the top tenth without a genMethod field', async () => {
    const service = await build({ machineId: 922 }, serverModeModule, twitterLayout);
    // The layout has no genMethod field: its ids record none.
    expect(service.info()).toMatchObject({ machine: 922, genMethod: 0 });
    expect(service.expId(await service.genId()).machine).toBe(922);
    expect(
      await codeOfAsync(() => build({ machineId: 921 }, serverModeModule, twitterLayout)),
    ).toBe('MACHINE_ID_OUT_OF_RANGE');
  });
});
