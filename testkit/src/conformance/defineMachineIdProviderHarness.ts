import type { Logger, TimeSource } from '@vesta/core';
import { abandonLease } from '@vesta/lease/testing';
import type {
  ConformanceCoordinator,
  ConformanceProfile,
  ConformanceProvider,
  MachineIdProviderHarness,
} from './MachineIdProviderHarness.js';

/** The provider options every profile sets (with whatever else the coordinator needs). */
export interface ConformanceTimings {
  readonly fenceAfterMs: number;
  readonly reclaimAfterMs: number;
}

/**
 * A profile's options, the era wait the suite asked for, and the suite's optional `key`,
 * `stateDir`, `time` and `logger` (each present only when the suite gave it): spread them into
 * the provider's options.
 */
export type ConformanceProviderSettings<T> = T & {
  readonly eraWaitMs: number;
  readonly key?: string;
  readonly stateDir?: string;
  readonly time?: TimeSource;
  readonly logger?: Logger;
  readonly journalRetention?: number;
  readonly connectTimeoutMs?: number;
};

/** What a coordinator's harness says of itself; {@link defineMachineIdProviderHarness} does the rest. */
export interface MachineIdProviderHarnessSpec<
  P extends Readonly<Record<ConformanceProfile, ConformanceTimings>>,
> {
  readonly name: string;
  /** A server of the suite's own (testkit's `start<Thing>Server()` servers are coordinators). */
  startCoordinator(): Promise<ConformanceCoordinator>;
  namespace(): string;
  /** The provider options (timings) of each profile. */
  readonly profiles: P;
  /** The provider's default era wait for a profile's options. */
  defaultEraWaitMs(timings: P[ConformanceProfile]): number;
  /** The provider at `address` (the coordinator or a proxy) in `namespace`, with `settings`. */
  createProvider(
    address: string,
    namespace: string,
    settings: ConformanceProviderSettings<P[ConformanceProfile]>,
  ): ConformanceProvider;
  /** Drops a lease as a crash would. @default core's `abandonLease` (every `CoordinatorLease`) */
  abandon?: MachineIdProviderHarness['abandon'];
  admin: MachineIdProviderHarness['admin'];
  dump: MachineIdProviderHarness['dump'];
}

/**
 * A {@link MachineIdProviderHarness} from a coordinator's specifics: the profiles' timings, the era
 * wait and the suite's optional settings are resolved here, once for every coordinator.
 */
export function defineMachineIdProviderHarness<
  P extends Readonly<Record<ConformanceProfile, ConformanceTimings>>,
>(spec: MachineIdProviderHarnessSpec<P>): MachineIdProviderHarness {
  const defaultEraWaitMs = (profile: ConformanceProfile): number =>
    spec.defaultEraWaitMs(spec.profiles[profile]);
  return {
    name: spec.name,
    startCoordinator: () => spec.startCoordinator(),
    namespace: () => spec.namespace(),
    createProvider: (o) =>
      spec.createProvider(o.address, o.namespace, {
        ...spec.profiles[o.profile],
        eraWaitMs: o.eraWait === 'default' ? defaultEraWaitMs(o.profile) : 0,
        ...(o.key === undefined ? {} : { key: o.key }),
        ...(o.stateDir === undefined ? {} : { stateDir: o.stateDir }),
        ...(o.time === undefined ? {} : { time: o.time }),
        ...(o.logger === undefined ? {} : { logger: o.logger }),
        ...(o.journalRetention === undefined ? {} : { journalRetention: o.journalRetention }),
        ...(o.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: o.connectTimeoutMs }),
      }),
    timings: (profile) => ({
      fenceAfterMs: spec.profiles[profile].fenceAfterMs,
      reclaimAfterMs: spec.profiles[profile].reclaimAfterMs,
      eraWaitMs: defaultEraWaitMs(profile),
    }),
    abandon: (lease) => (spec.abandon ?? abandonLease)(lease),
    admin: (address, namespace) => spec.admin(address, namespace),
    dump: (address, namespace) => spec.dump(address, namespace),
  };
}
