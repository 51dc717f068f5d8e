import type { RestServer } from '../RestServer.js';

/** One worker of a {@link RestCluster}. */
export interface RestClusterWorker {
  /** Its index, 0 to workers - 1: the same for a worker restarted in its place. */
  readonly index: number;
  /** The machine id it issues under. */
  readonly machineId: number;
  /** Its process id (a new one after a restart). */
  readonly pid: number;
}

/** A REST server served by several processes on one port: the primary's handle. */
export interface RestCluster extends Pick<RestServer, 'url' | 'host'> {
  /** The port every worker shares. */
  readonly port: number;
  /** The workers now (a restarted worker shows its new pid). */
  workers(): readonly RestClusterWorker[];
  /** Resolves after `close()`; rejects with the coded error when the cluster stopped by itself. */
  readonly stopped: Promise<void>;
  /** Graceful stop of every worker (as `RestServer.close()`). Safe to call twice. */
  close(): Promise<void>;
}
