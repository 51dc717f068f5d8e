import {
  createIdService,
  createSharedIdState,
  DEFAULT_SERVER_MACHINE_ID_START,
  GenMethod,
  IdGenerators,
  layoutSpecOf,
  machineIdRanges,
  VestaError,
  type SharedIdState,
} from '@vesta/core';
import { checkOption, layoutOfOptions, wholeNumber, type DefaultIdService } from '@vesta/core/kit';
import type { AsyncEmbeddedIdService, EmbeddedIdService } from './EmbeddedIdService.js';
import {
  embeddedMachineIdRange,
  type EmbeddedIdServiceOptions,
} from './EmbeddedIdServiceOptions.js';
import type { WorkerIdServiceConfig } from './WorkerIdServiceConfig.js';

/**
 * Issues Vesta ids inside this process (genMethod 0) under a machine id of the embedded range
 * (0-923 by default; a server-range id is MACHINE_ID_OUT_OF_RANGE). With the 'lock' populator
 * the service has no `genIdSync` in its type: it issues asynchronously only. `layout` takes a
 * preset (`'twitter'`, `'leaf'`, `'sonyflake'`, ...) or a full spec: such layouts have no
 * genMethod field, and their embedded range is the lower nine tenths of the machine field.
 *
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
  const {
    serverMachineIdStart: startOption,
    generators: generatorOptions,
    ...rest
  } = options ?? {};
  for (const fixed of ['genMethod', 'machineIdRange']) {
    // The mode sets these; taking a caller's value silently would issue under another genMethod's name.
    if (Object.hasOwn(rest, fixed)) {
      throw new VestaError(
        'INVALID_OPTIONS',
        `${fixed} is fixed by the embedded mode; use serverMachineIdStart for the range`,
      );
    }
  }
  const machineField = serverRangeOf(rest);
  const serverMachineIdStart = startOption ?? machineField.start;
  checkOption(wholeNumber(1, machineField.max), 'serverMachineIdStart', serverMachineIdStart);
  const sharedState: SharedIdState | undefined =
    rest.populator === 'atomic' ? (rest.sharedState ?? createSharedIdState()) : rest.sharedState;
  const modeOptions = {
    genMethod: GenMethod.EMBEDDED,
    machineIdRange: embeddedMachineIdRange(serverMachineIdStart),
  };
  const service = await createIdService<DefaultIdService>({
    ...rest,
    ...(sharedState === undefined ? {} : { sharedState }),
    ...modeOptions,
  });
  let generators: IdGenerators;
  try {
    // A name of its own shape gets its own service: same options, its own machine id and
    // shape, and never the owner's shared state (another identity may not join it).
    const ownBase: EmbeddedIdServiceOptions = { ...rest };
    delete (ownBase as { sharedState?: SharedIdState }).sharedState;
    generators = await IdGenerators.create(service, generatorOptions, (own) =>
      createIdService({ ...ownBase, ...own, ...modeOptions }),
    );
  } catch (error) {
    await service.close();
    throw error;
  }
  const closeService = service.close.bind(service);
  const workerConfig = (): WorkerIdServiceConfig => {
    const info = service.info();
    if (sharedState === undefined) {
      throw new VestaError(
        'INVALID_OPTIONS',
        "worker threads can share a service only with populator 'atomic'",
      );
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
      rollbackToleranceMs: rest.rollbackToleranceMs ?? 1000,
      stateDir: rest.stateDir,
      markWindowMs: rest.markWindowMs ?? 3000,
      maxBatch: info.maxBatch,
      maxLeadMs: rest.maxLeadMs ?? 0,
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

/**
 * Where the server range of the layout begins by default (924 for Vesta's layouts, the top
 * tenth of the machine field for the others) and the largest id it may begin at (1023 for
 * Vesta's).
 */
function serverRangeOf(options: EmbeddedIdServiceOptions): { start: number; max: number } {
  const layout = layoutOfOptions(options);
  if (layout !== undefined && layout.genMethod.bits === 0) {
    return { start: machineIdRanges(layout.widths).server.min, max: layout.machine.max };
  }
  return { start: DEFAULT_SERVER_MACHINE_ID_START, max: 1023 };
}
