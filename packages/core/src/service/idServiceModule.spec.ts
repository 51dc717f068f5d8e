import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { VestaError } from '../errors/VestaError.js';
import { vestaLayout } from '../layout/layoutPresets.js';
import type { MachineIdProvider } from '../machine-id/MachineIdProvider.js';
import { StaticMachineIdProvider } from '../machine-id/MachineIdProvider.js';
import type { Clock } from '../time/TimeSource.js';
import { timeSourceWithClock, type TimeSource } from '../time/TimeSource.js';
import { DEFAULT_EPOCH_MS } from '../time/parseEpoch.js';
import { TOKENS } from '../tokens.js';
import { createIdService } from './createIdService.js';
import type { DefaultIdService } from './DefaultIdService.js';
import { idAt } from '../testing/idAt.js';
import { simulateCrash } from '../testing/simulateCrash.js';
import { capturingLogger, caughtAsync } from '@vesta/testkit';

const EPOCH = DEFAULT_EPOCH_MS;
const YEAR_MS = 365 * 24 * 3600 * 1000;

function clockModule(clock: Clock): ContainerModule {
  return new ContainerModule(({ rebindSync }) => {
    rebindSync<TimeSource>(TOKENS.TimeSource).toConstantValue(timeSourceWithClock(clock));
  });
}

describe('idServiceModule', () => {
  it('issues on a clock rebound by a user module', async () => {
    const at = Date.UTC(2040, 1, 2, 3, 4, 5);
    const service = await createIdService<DefaultIdService>({
      machineId: 3,
      modules: [clockModule(() => at)],
    });
    expect(service.transTime(service.expId(service.genIdSync()).time).getTime()).toBe(at);
    await service.close();
  });

  it('warns about the expiry on a clock rebound by a user module', async () => {
    const logger = capturingLogger();
    const expiry = EPOCH + 2 ** 30 * 1000;
    const service = await createIdService<DefaultIdService>({
      machineId: 3,
      logger,
      modules: [clockModule(() => expiry - YEAR_MS / 2)],
    });
    expect(logger.warnings.some((w) => w.message.includes('less than a year'))).toBe(true);
    await service.close();
  });

  it('checks the high-water mark at restart against a clock rebound by a user module', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vesta-wiring-'));
    try {
      const at = EPOCH + 1_000_000_000;
      const first = await createIdService<DefaultIdService>({
        machineId: 3,
        stateDir: dir,
        modules: [clockModule(() => at)],
      });
      first.genIdSync();
      await simulateCrash(first);
      let error: unknown;
      try {
        await createIdService({
          machineId: 3,
          stateDir: dir,
          modules: [clockModule(() => at - 60_000)],
        });
      } catch (e) {
        error = e;
      }
      expect(VestaError.is(error, 'CLOCK_BEHIND_HIGH_WATER_MARK')).toBe(true);
      await first.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes the machine id from a provider rebound by a user module', async () => {
    const module = new ContainerModule(({ rebindSync }) => {
      rebindSync<MachineIdProvider>(TOKENS.MachineIdProvider).toConstantValue(
        new StaticMachineIdProvider(42),
      );
    });
    const service = await createIdService<DefaultIdService>({
      machineId: 3,
      clock: () => EPOCH + 5000,
      modules: [module],
    });
    expect(service.info().machine).toBe(42);
    expect(service.expId(service.genIdSync()).machine).toBe(42);
    await service.close();
  });

  it('still range-checks a machine id from a rebound provider', async () => {
    const module = new ContainerModule(({ rebindSync }) => {
      rebindSync<MachineIdProvider>(TOKENS.MachineIdProvider).toConstantValue(
        new StaticMachineIdProvider(1000),
      );
    });
    const error = await caughtAsync(() => createIdService({ machineId: 3, modules: [module] }));
    expect(error.code).toBe('MACHINE_ID_OUT_OF_RANGE');
  });

  it('issues and decodes ids of a layout rebound (asynchronously) by a user module', async () => {
    const meta = vestaLayout(0, { machineBits: 12, seqBits: 18 });
    const module = new ContainerModule(async ({ rebind }) => {
      (await rebind(TOKENS.IdMeta)).toConstantValue(meta);
    });
    const service = await createIdService<DefaultIdService>({
      machineId: 900,
      clock: () => EPOCH + 5000,
      modules: [module],
    });
    expect(service.info().layout).toEqual(meta.widths);
    const ids = [service.genIdSync(), service.genIdSync()];
    expect(idAt(ids, 0) >> 12n).toBe(5n << 18n);
    expect(service.expId(idAt(ids, 1))).toEqual({
      machine: 900,
      seq: 1,
      time: 5,
      genMethod: 0,
      type: 0,
      version: 0,
    });
    expect(service.makeId({ time: 1, seq: 2 ** 18 - 1, machine: 4095 })).toBe(
      (1n << 30n) | ((2n ** 18n - 1n) << 12n) | 4095n,
    );
    await service.close();
  });

  it('checks a rebound layout like an option: a machine range it cannot hold is refused at start', async () => {
    const narrow = new ContainerModule(({ rebindSync }) => {
      rebindSync(TOKENS.IdMeta).toConstantValue(vestaLayout(0, { machineBits: 8 }));
    });
    const error = await caughtAsync(() => createIdService({ machineId: 3, modules: [narrow] }));
    expect(error.code).toBe('INVALID_LAYOUT');
    expect(error.message).toContain('machine id range end 923');
  });
});
