import type { MachineIdProvider } from '@vesta/core';
import type { ConformanceAllocation, ConformanceCoordinator } from './MachineIdProviderHarness.js';

/** A provider of one start, counting the store round trips its claims cost. */
export interface FleetProvider extends MachineIdProvider {
  /** Each claim round's read and each claim write so far. */
  readonly roundTrips: number;
}

/** What {@link describeFleetStart} needs of a coordinator. */
export interface FleetStartHarness {
  /** The coordinator's name in test titles. */
  readonly name: string;
  /** Starts a coordinator of the test's own on a free port of 127.0.0.1. */
  startCoordinator(): Promise<ConformanceCoordinator>;
  /** A namespace nobody used yet. */
  namespace(): string;
  /**
   * The provider of one start, with the key given, the provider's default timings but no era wait
   * (the namespace is new: the wait would be one fixed delay before any claim, nothing a fleet's
   * size changes), and its own client connection (or a bounded pool the harness shares in this
   * process).
   */
  createProvider(address: string, namespace: string, key: string): FleetProvider;
  /** The admin's listing of a namespace. */
  list(address: string, namespace: string): Promise<readonly ConformanceAllocation[]>;
  /** Releases what the harness shares (a pool), once every lease closed. */
  dispose?(): Promise<void>;
  /**
   * Runs the starts in `count` child processes (plain Node), split evenly, instead of the test's
   * own: each imports `module` (a file URL or path; compiled first), which exports this harness as
   * `fleetStartHarness`, and creates its providers with it. For a store whose client costs more
   * CPU per start than one process's event loop gives a fleet (etcd's gRPC channels). The listing
   * stays in the test's process. @default the starts run in the test's process
   */
  readonly processes?: { readonly count: number; readonly module: string };
  /**
   * The bound on all assignments and refusals when measuring, where an issue sets a store its own
   * (etcd: 30 s, issue 33, bound by its client's CPU on 2 cores). @default 10000
   */
  readonly measuredWithinMs?: number;
  /** Whether the test runs (an opt-in store says why it is off by default). @default true */
  readonly enabled?: boolean;
}
