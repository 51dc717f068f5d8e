import 'reflect-metadata';
import { ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { MIN_GRANULARITY_LAYOUT, vestaLayout } from '../layout/layoutPresets.js';
import type {
  MachineIdLease,
  MachineIdProvider,
  MachineIdRequest,
} from '../machine-id/MachineIdProvider.js';
import { DEFAULT_EPOCH_MS } from '../time/parseEpoch.js';
import { Timer } from '../time/Timer.js';
import { timeSourceWithClock, type TimeSource } from '../time/TimeSource.js';
import { TOKENS } from '../tokens.js';
import { createIdService } from './createIdService.js';
import type { DefaultIdService } from './DefaultIdService.js';
import { caughtAsync } from '@vesta/testkit';

const clock = (): number => DEFAULT_EPOCH_MS + 5000;

/** A provider as a coordinator would give it: it records what it was asked and what it released. */
class RecordingProvider implements MachineIdProvider {
  readonly requests: MachineIdRequest[] = [];
  released = 0;

  constructor(private readonly machineId: number) {}

  async acquire(request: MachineIdRequest): Promise<MachineIdLease> {
    this.requests.push(request);
    return {
      machineId: this.machineId,
      release: async () => {
        this.released++;
      },
    };
  }
}

/** What a coordinator package exports: a module binding its provider, nothing else. */
function providerModule(provider: MachineIdProvider): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<MachineIdProvider>(TOKENS.MachineIdProvider).toConstantValue(provider);
  });
}

describe('an id service composed from modules', () => {
  it('takes its machine id from a provider module, asked for the bound range and genMethod', async () => {
    const provider = new RecordingProvider(12);
    const service = await createIdService<DefaultIdService>({ clock }, providerModule(provider));
    expect(service.info().machine).toBe(12);
    expect(service.expId(service.genIdSync()).machine).toBe(12);
    expect(provider.requests).toEqual([{ range: { min: 0, max: 923 }, genMethod: 0, type: 0 }]);
    await service.close();
    expect(provider.released).toBe(1);
  });

  it('refuses a provider module beside a machineId option with INVALID_OPTIONS, before acquiring', async () => {
    const provider = new RecordingProvider(12);
    const error = await caughtAsync(() =>
      createIdService({ machineId: 3, clock }, providerModule(provider)),
    );
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain('exactly one');
    expect(provider.requests).toEqual([]);
  });

  it('refuses a machine id from a provider module outside the bound range and releases it', async () => {
    const provider = new RecordingProvider(924);
    const error = await caughtAsync(() => createIdService({ clock }, providerModule(provider)));
    expect(error.code).toBe('MACHINE_ID_OUT_OF_RANGE');
    expect(provider.released).toBe(1);
  });

  it('checks a range bound by a module against the bound layout once, before acquiring', async () => {
    const provider = new RecordingProvider(3);
    const wide = new ContainerModule(({ rebindSync }) => {
      rebindSync(TOKENS.MachineIdRange).toConstantValue({ min: 0, max: 4095 });
    });
    const error = await caughtAsync(() =>
      createIdService({ clock }, wide, providerModule(provider)),
    );
    expect(error.code).toBe('INVALID_LAYOUT');
    expect(error.message).toContain('machine id range end 4095');
    expect(provider.requests).toEqual([]);
  });

  it('validates what is finally bound, not what the options first said: a user layout wide enough for the range passes', async () => {
    // The options' layout alone (8 machine bits) cannot hold 0-923; the layout the user's
    // module binds (12 bits) can, and only it is checked.
    const wide = new ContainerModule(({ rebindSync }) => {
      rebindSync(TOKENS.IdMeta).toConstantValue(vestaLayout(0, { machineBits: 12, seqBits: 18 }));
    });
    const service = await createIdService<DefaultIdService>({
      machineId: 900,
      clock,
      layout: { machineBits: 8, seqBits: 22 },
      modules: [wide],
    });
    expect(service.info().layout.machineBits).toBe(12);
    expect(service.expId(service.genIdSync()).machine).toBe(900);
    await service.close();
  });

  it('binds genMethod from a module into the ids, the identity and the provider request', async () => {
    const provider = new RecordingProvider(1000);
    const server = new ContainerModule(({ rebindSync }) => {
      rebindSync(TOKENS.GenMethod).toConstantValue(1);
      rebindSync(TOKENS.MachineIdRange).toConstantValue({ min: 924, max: 1023 });
    });
    const service = await createIdService<DefaultIdService>(
      { clock },
      server,
      providerModule(provider),
    );
    expect(service.expId(service.genIdSync())).toMatchObject({ machine: 1000, genMethod: 1 });
    expect(service.info().genMethod).toBe(1);
    expect(provider.requests[0]?.genMethod).toBe(1);
    await service.close();
  });

  it('refuses a genMethod bound by a module that the layout cannot hold', async () => {
    const five = new ContainerModule(({ rebindSync }) => {
      rebindSync(TOKENS.GenMethod).toConstantValue(5);
    });
    const error = await caughtAsync(() => createIdService({ machineId: 3, clock }, five));
    expect(error.code).toBe('INVALID_LAYOUT');
    expect(error.message).toContain('genMethod 5');
  });

  it('builds the timer, codec and ids on a layout and time source a user module binds', async () => {
    const at = DEFAULT_EPOCH_MS + 1_234_567;
    const user = new ContainerModule(({ rebindSync }) => {
      rebindSync(TOKENS.IdMeta).toConstantValue(MIN_GRANULARITY_LAYOUT);
      rebindSync<TimeSource>(TOKENS.TimeSource).toConstantValue(timeSourceWithClock(() => at));
    });
    const service = await createIdService<DefaultIdService>({ machineId: 3, modules: [user] });
    // Milliseconds, on the bound clock: the timer and codec follow both bindings.
    expect(service.expId(service.genIdSync())).toMatchObject({ time: 1_234_567, type: 1 });
    expect(service.transTime(1_234_567).getTime()).toBe(at);
    await service.close();
  });

  it('refuses a timer a user module binds that does not match the bound layout', async () => {
    const seconds = new ContainerModule(({ rebindSync }) => {
      rebindSync(TOKENS.IdMeta).toConstantValue(MIN_GRANULARITY_LAYOUT);
      rebindSync(TOKENS.Timer).toConstantValue(new Timer(DEFAULT_EPOCH_MS, 1000, 30, clock));
    });
    const error = await caughtAsync(() =>
      createIdService({ machineId: 3, clock, modules: [seconds] }),
    );
    expect(error.code).toBe('INVALID_LAYOUT');
    expect(error.message).toContain('timer');
  });
});
