import { randomUUID } from 'node:crypto';
import type { IdService, MachineIdProvider } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import { issueContinuously, type IssueLoops } from './issueContinuously.js';
import { watchHealth, type HealthWatch } from './watchHealth.js';

/** Embedded services issuing in a loop while a test injects faults, their health watched. */
export interface FaultFleet {
  readonly services: readonly IdService[];
  readonly loops: IssueLoops;
  readonly health: HealthWatch;
  /** Stops issuing and watching, and closes the services. */
  stop(): Promise<void>;
}

/**
 * For fault tests of a coordinator: one embedded service per provider, each as on a host of its
 * own (its own host-lock scope), issuing continuously ({@link issueContinuously}) and its health
 * sampled ({@link watchHealth}).
 */
export async function startFaultFleet(
  providers: readonly MachineIdProvider[],
): Promise<FaultFleet> {
  const services: IdService[] = [];
  for (const machineIdProvider of providers) {
    services.push(
      await createEmbeddedIdService({
        machineIdProvider,
        hostLockScope: `fault-fleet-${randomUUID()}`,
      }),
    );
  }
  const loops = issueContinuously(services);
  const health = watchHealth(services);
  return {
    services,
    loops,
    health,
    async stop() {
      health.stop();
      await loops.stop();
      await Promise.all(services.map((s) => s.close()));
    },
  };
}
