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
  /**
   * Worker processes serving the one port (1 to 1024). Each issues under a machine id of its
   * own, so there can be no more workers than machine ids in `machineIds`.
   * @default os.availableParallelism(), at most the size of `machineIds`
   */
  workers: wholeNumber(1, 1024).optional(),
  /**
   * The machine ids of the workers, within the server range 924-1023: worker `i` issues as
   * `min + i`, and a worker restarted after a crash issues under its predecessor's id (never
   * another worker's). Give exactly one of `machineIds`, `machineIdProvider` and `machineIdModule`.
   * @example { min: 1020, max: 1023 }
   */
  machineIds: z.strictObject({ min: wholeNumber(0, 1023), max: wholeNumber(0, 1023) }).optional(),
  /**
   * Builds the machine-id provider of worker `i` (0-based), in that worker: e.g. a ZooKeeper
   * lease keyed by `host:port#i`. Each worker must get an id of its own.
   */
  machineIdProvider: functionOption<(worker: number) => MachineIdProvider>(
    'a function of the worker index returning a MachineIdProvider',
  ).optional(),
  /**
   * Builds the machine-id module of worker `i` (0-based), in that worker: a coordinator's, e.g.
   * `zooKeeperMachineIdModule({ connect, key: \`host:port#${i}\` })`, loaded after the
   * `modules` option. Each worker must get an id of its own.
   */
  machineIdModule: functionOption<(worker: number) => ContainerModule | Promise<ContainerModule>>(
    'a function of the worker index returning a ContainerModule',
  ).optional(),
  /**
   * How many times one worker may die (after it served) within a minute and be started again
   * on its machine id; one more death, or a replacement that cannot start, stops the cluster
   * (every worker drained) and rejects `stopped`.
   * @default 5
   */
  maxRestartsPerMinute: wholeNumber(0, 1000).default(5),
  /**
   * Builds worker `i`'s segment service, in that worker (which closes it once its server has
   * drained): each worker claims ranges of its own, so its numbers increase, the cluster's do not.
   * @default none
   */
  segments: functionOption<
    (context: RestClusterSegmentsContext) => RestClusterSegments | Promise<RestClusterSegments>
  >('a function of the worker returning { service, close }').optional(),
});

/**
 * Options of {@link startRestCluster}: `startRestServer`'s but the machine id, the metrics and
 * the segment service (each worker has its own), plus the cluster's own.
 */
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
    throw new VestaError(
      'INVALID_OPTIONS',
      'REST cluster: give machineIds (or machineIdProvider), not machineId; each worker keeps its own metrics',
    );
  }
  const o = restClusterOptions.resolve(cluster);
  const sources = [o.machineIds, o.machineIdProvider, o.machineIdModule];
  if (sources.filter((source) => source !== undefined).length !== 1) {
    throw new VestaError(
      'INVALID_OPTIONS',
      'REST cluster: give exactly one of machineIds and machineIdProvider (or machineIdModule)',
    );
  }
  let workers = o.workers ?? cores;
  if (o.machineIds !== undefined) {
    const { min, max } = o.machineIds;
    checkMachineIdInRange(min, SERVER_MACHINE_ID_RANGE, 'machineIds.min of a REST cluster');
    checkMachineIdInRange(max, SERVER_MACHINE_ID_RANGE, 'machineIds.max of a REST cluster');
    if (min > max) {
      throw new VestaError(
        'INVALID_OPTIONS',
        `REST cluster: machineIds ${min}-${max} is empty (min above max)`,
      );
    }
    const size = max - min + 1;
    if (o.workers === undefined) workers = Math.min(workers, size);
    else if (workers > size) {
      throw new VestaError(
        'INVALID_OPTIONS',
        `REST cluster: ${workers} workers need ${workers} machine ids, machineIds ${min}-${max} holds ${size}; ` +
          'two workers on one machine id would issue the same ids',
        { details: { workers, min, max } },
      );
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
