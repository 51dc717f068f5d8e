import { createIdService, createSharedIdState, IdGenerators, VestaError } from '@vesta/core';
import { idServiceOptions, layoutSpecOf } from '@vesta/core/kit';
import type { DefaultIdService } from '@vesta/core/kit';
import type {
  AsyncEmbeddedIdService,
  EmbeddedIdService,
  EmbeddedIdServiceOptions,
  WorkerIdServiceConfig,
} from './EmbeddedIdService.js';
import { embeddedModeModule } from './embeddedModeModule.js';

const option = idServiceOptions.schema.shape;

/**
 * Issues ids inside this process (genMethod 0) under a machine id of the embedded range (0-923
 * by default; the lower nine tenths of the machine field for layouts without genMethod).
 * @example
 * const ids = await createEmbeddedIdService({ machineId: 7 });
 * const id = await ids.genId();      // 1234...n (bigint)
 * ids.expId(id);                     // { machine: 7, seq, time, genMethod: 0, type: 0, version: 0 }
 * await ids.close();
 */
export async function createEmbeddedIdService(
  options: EmbeddedIdServiceOptions & { readonly populator: 'lock' },
): Promise<AsyncEmbeddedIdService>;
export async function createEmbeddedIdService(
  options: EmbeddedIdServiceOptions,
): Promise<EmbeddedIdService>;
export async function createEmbeddedIdService(
  options: EmbeddedIdServiceOptions,
): Promise<EmbeddedIdService> {
  const { serverMachineIdStart: start, generators: named, ...rest } = options ?? {};
  const fixed = ['genMethod', 'machineIdRange'].find((name) => Object.hasOwn(rest, name));
  if (fixed !== undefined) {
    const why = `${fixed} is fixed by the embedded mode; use serverMachineIdStart for the range`;
    throw new VestaError('INVALID_OPTIONS', why);
  }
  const sharedState =
    rest.populator === 'atomic' ? (rest.sharedState ?? createSharedIdState()) : rest.sharedState;
  const service = await createIdService<DefaultIdService>(
    { ...rest, ...(sharedState === undefined ? {} : { sharedState }) },
    embeddedModeModule(start),
  );
  const serverMachineIdStart = service.machineIdRange.max + 1;
  let generators: IdGenerators;
  try {
    // A name of its own shape gets its own service, never the owner's shared state.
    const ownBase: EmbeddedIdServiceOptions = { ...rest };
    delete (ownBase as { sharedState?: unknown }).sharedState;
    generators = await IdGenerators.create(service, named, (own) =>
      createIdService({ ...ownBase, ...own }, embeddedModeModule(serverMachineIdStart)),
    );
  } catch (error) {
    await service.close();
    throw error;
  }
  const closeService = service.close.bind(service);
  const workerConfig = (): WorkerIdServiceConfig => {
    const info = service.info();
    if (sharedState === undefined) {
      const why = "worker threads can share a service only with populator 'atomic'";
      throw new VestaError('INVALID_OPTIONS', why);
    }
    return {
      buffer: sharedState.buffer,
      machineId: info.machine,
      type: info.type,
      version: info.version,
      epochMs: info.epochMs,
      layout: info.layout,
      layoutSpec: layoutSpecOf(info),
      populator: info.populator,
      rollbackToleranceMs: option.rollbackToleranceMs.parse(rest.rollbackToleranceMs),
      stateDir: rest.stateDir,
      markWindowMs: option.markWindowMs.parse(rest.markWindowMs),
      maxBatch: info.maxBatch,
      maxLeadMs: option.maxLeadMs.parse(rest.maxLeadMs),
      serverMachineIdStart,
    };
  };
  return Object.assign(service, {
    workerConfig,
    generator: (name: string) => generators.get(name),
    generators: () => generators.list(),
    close: async () => {
      await generators.close();
      await closeService();
    },
  });
}
