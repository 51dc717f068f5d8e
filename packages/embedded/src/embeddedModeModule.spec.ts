import { createIdService, TOKENS, type IdService } from '@vesta/core';
import { layoutPreset } from '@vesta/core/kit';
import { codeOfAsync } from '@vesta/testkit';
import { ContainerModule } from 'inversify';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedModeModule } from './embeddedModeModule.js';

const clock = (): number => Date.UTC(2026, 2, 3);
const silent = { info() {}, warn() {}, error() {} };
const open: IdService[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((service) => service.close()));
});

async function build(machineId: number, ...modules: ContainerModule[]): Promise<IdService> {
  const service = await createIdService({ machineId, clock, logger: silent }, ...modules);
  open.push(service);
  return service;
}

const twitterLayout = new ContainerModule(({ rebindSync }) => {
  rebindSync(TOKENS.IdMeta).toConstantValue(layoutPreset('twitter').layout);
});

describe('embeddedModeModule', () => {
  it('alone fixes genMethod 0 and the embedded range 0-923', async () => {
    const service = await build(923, embeddedModeModule());
    expect(service.expId(await service.genId())).toMatchObject({ machine: 923, genMethod: 0 });
    expect(await codeOfAsync(() => build(924, embeddedModeModule()))).toBe(
      'MACHINE_ID_OUT_OF_RANGE',
    );
  });

  it('ends the range below serverMachineIdStart, checked against the bound layout', async () => {
    expect((await build(511, embeddedModeModule(512))).info().machine).toBe(511);
    expect(await codeOfAsync(() => build(512, embeddedModeModule(512)))).toBe(
      'MACHINE_ID_OUT_OF_RANGE',
    );
    expect(await codeOfAsync(() => build(1, embeddedModeModule(1024)))).toBe('INVALID_OPTIONS');
  });

  it('takes the range of a layout a user module binds: the lower nine tenths without a genMethod field', async () => {
    const service = await build(921, embeddedModeModule(), twitterLayout);
    expect(service.info().layout.genMethodBits).toBe(0);
    expect(service.expId(await service.genId()).machine).toBe(921);
    expect(await codeOfAsync(() => build(922, embeddedModeModule(), twitterLayout))).toBe(
      'MACHINE_ID_OUT_OF_RANGE',
    );
  });
});
