import { availableParallelism } from 'node:os';
import {
  SERVER_MACHINE_ID_RANGE,
  VestaError,
  type MachineIdProvider,
  type SegmentServiceObserver,
} from '@vesta/core';
import {
  checkMachineIdInRange,
  defineOptions,
  functionOption,
  splitOptions,
  type SegmentNumbers,
  wholeNumber,
} from '@vesta/core/kit';
import type { ContainerModule } from 'inversify';
import { z } from 'zod';
import { resolveRestServerOptions, type RestServerOptions } from '../RestServerOptions.js';

/** A worker's segment service, and how to close it (hand its numbers back, close its store). */
export interface RestClusterSegments {
  readonly service: SegmentNumbers;
  close(): Promise<void>;
}

/** What builds a worker's segment service is told: which worker, and where its metrics are. */
export interface RestClusterSegmentsContext {
  /** The worker's index (0-based). */
  readonly worker: number;
  /** The worker's metrics' `segmentObserver`: give it to `createSegmentService`. */
  readonly observer: SegmentServiceObserver;
}

const restClusterOptions = defineOptions('REST cluster', {
  /** Worker processes serving the port. @default os.availableParallelism(), at most `machineIds`' size */
  workers: wholeNumber(1, 1024).optional(),
  /** Worker `i` issues as `min + i` (a restarted one too); or `machineIdProvider`, `machineIdModule`. */
  machineIds: z.strictObject({ min: wholeNumber(0, 1023), max: wholeNumber(0, 1023) }).optional(),
  /** Builds the machine-id provider of worker `i`, in that worker; each its own id. */
  machineIdProvider: functionOption<(worker: number) => MachineIdProvider>(
    'a function of the worker index returning a MachineIdProvider',
  ).optional(),
  /** Builds the machine-id module of worker `i` (a coordinator's), in that worker, after `modules`. */
  machineIdModule: functionOption<(worker: number) => ContainerModule | Promise<ContainerModule>>(
    'a function of the worker index returning a ContainerModule',
  ).optional(),
  /** Deaths of one worker within a minute restarted; one more stops the cluster. @default 5 */
  maxRestartsPerMinute: wholeNumber(0, 1000).default(5),
  /** Builds worker `i`'s segment service, in that worker (closed after its server). @default none */
  segments: functionOption<
    (context: RestClusterSegmentsContext) => RestClusterSegments | Promise<RestClusterSegments>
  >('a function of the worker returning { service, close }').optional(),
});

/** Options of {@link startRestCluster}: `startRestServer`'s but what each worker has its own. */
export type RestClusterOptions = Omit<
  RestServerOptions,
  'machineId' | 'machineIdProvider' | 'metrics' | 'segments'
> &
  Readonly<z.input<typeof restClusterOptions.schema>>;

/** {@link RestClusterOptions} after validation. */
export type ResolvedRestClusterOptions = ReturnType<typeof resolveRestClusterOptions>;

const CLUSTER_KEYS = new Set(Object.keys(restClusterOptions.schema.shape));

/** Validates the options once: one source of machine ids, an id for every worker. */
export function resolveRestClusterOptions(
  options: RestClusterOptions,
  cores: number = availableParallelism(),
) {
  const { own: cluster, rest: server } = splitOptions(CLUSTER_KEYS, options);
  if ('machineId' in server || 'metrics' in server) {
    const why =
      'REST cluster: give machineIds (or machineIdProvider), not machineId; each worker keeps its own metrics';
    throw new VestaError('INVALID_OPTIONS', why);
  }
  const o = restClusterOptions.resolve(cluster);
  const sources = [o.machineIds, o.machineIdProvider, o.machineIdModule];
  if (sources.filter((source) => source !== undefined).length !== 1) {
    const why =
      'REST cluster: give exactly one of machineIds and machineIdProvider (or machineIdModule)';
    throw new VestaError('INVALID_OPTIONS', why);
  }
  let workers = o.workers ?? cores;
  if (o.machineIds !== undefined) {
    const { min, max } = o.machineIds;
    checkMachineIdInRange(min, SERVER_MACHINE_ID_RANGE, 'machineIds.min of a REST cluster');
    checkMachineIdInRange(max, SERVER_MACHINE_ID_RANGE, 'machineIds.max of a REST cluster');
    if (min > max) {
      const why = `REST cluster: machineIds ${min}-${max} is empty (min above max)`;
      throw new VestaError('INVALID_OPTIONS', why);
    }
    const size = max - min + 1;
    if (o.workers === undefined) workers = Math.min(workers, size);
    else if (workers > size) {
      const why = `REST cluster: ${workers} workers need ${workers} machine ids, machineIds ${min}-${max} holds ${size}; two workers on one machine id would issue the same ids`;
      throw new VestaError('INVALID_OPTIONS', why, { details: { workers, min, max } });
    }
  }
  const { host, port, logger, shutdownTimeoutMs } = resolveRestServerOptions(
    server as RestServerOptions,
  );
  return Object.freeze({
    ...o,
    workers,
    ...{ host, port, shutdownTimeoutMs, logger },
    /** What every worker passes to `startRestServer`, less its machine id and metrics. */
    server: Object.freeze(server) as Omit<
      RestClusterOptions,
      keyof typeof restClusterOptions.schema.shape
    >,
  });
}
