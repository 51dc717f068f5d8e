import { performance } from 'node:perf_hooks';
import { silentLogger, VestaError } from '@vesta/core';
import { createEmbeddedIdService, type EmbeddedIdService } from '@vesta/embedded';
import type { FleetProvider } from './FleetStartHarness.js';

/** What one start of a fleet did, as a child process reports it (no service). */
export interface FleetOutcome {
  /** The start's number in the fleet: its key is `fleet-<index>`, its host-lock scope `<scope>/<index>`. */
  readonly index: number;
  readonly machineId: number | undefined;
  /** The start's error code; undefined when it started. */
  readonly code: string | undefined;
  /** Why a start failed other than MACHINE_ID_EXHAUSTED (the error as text). */
  readonly error: string | undefined;
  /** When its claim was answered, in ms since the fleet was let go. */
  readonly atMs: number;
  readonly roundTrips: number;
}

/** A start's outcome with the service it started (in the process that runs it). */
export interface FleetMember extends FleetOutcome {
  readonly service: EmbeddedIdService | undefined;
}

/** Now, in ms since the Unix epoch at sub-millisecond resolution, comparable between processes. */
export function fleetClockMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Starts one embedded service for each provider, all at once, each on its own host-lock scope
 * (`<scope>/<index>`: each stands for another host, only the store keeps them apart). Times run
 * from `goAtMs` ({@link fleetClockMs} of the moment the fleet was let go) to the moment a start's
 * claim was answered: its lease granted, or refused (the service starts after).
 */
export function startFleetMembers(
  members: readonly { readonly index: number; readonly provider: FleetProvider }[],
  scope: string,
  goAtMs: number,
): Promise<FleetMember[]> {
  return Promise.all(
    members.map(async ({ index, provider }): Promise<FleetMember> => {
      let machineId: number | undefined;
      let answeredAt: number | undefined;
      const answered = (): number => (answeredAt ??= fleetClockMs() - goAtMs);
      const outcome = (service: EmbeddedIdService | undefined, code?: string, error?: string) => ({
        index,
        service,
        machineId,
        code,
        error,
        atMs: answered(),
        roundTrips: provider.roundTrips,
      });
      try {
        const service = await createEmbeddedIdService({
          machineIdProvider: {
            acquire: async (request) => {
              try {
                const lease = await provider.acquire(request);
                machineId = lease.machineId;
                return lease;
              } finally {
                answered();
              }
            },
          },
          logger: silentLogger,
          hostLockScope: `${scope}/${index}`,
        });
        return outcome(service);
      } catch (error) {
        const code = VestaError.is(error) ? error.code : String(error);
        return outcome(
          undefined,
          code,
          code === 'MACHINE_ID_EXHAUSTED' ? undefined : String(error),
        );
      }
    }),
  );
}
