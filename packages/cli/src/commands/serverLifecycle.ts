import { machineIdRanges, type IdMeta } from '@vesta/core';
import { resolveLayoutOption, RunningParts } from '@vesta/core/kit';
import { createVestaMetrics, type VestaMetrics } from '@vesta/metrics';
import type { SegmentService } from '@vesta/segment';
import { pino, type Logger } from 'pino';
import { segmentsOfFlag } from './segmentStoreFlag.js';
import { flagText, type Flags } from './addSchemaFlags.js';
import { machineIdFromFlags, type ServiceFlagValues } from './serviceFlags.js';

/** The server range of a layout, as `min-max`. */
function serverRange(layout: IdMeta | undefined): string {
  if (layout === undefined) return '924-1023';
  const { server } = machineIdRanges(layout.widths);
  return `${server.min}-${server.max}`;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** The shared flags' logger, options, container (a coordinator's module in it); warns if unsafe. */
export async function prepareServer(
  name: string,
  flags: Flags,
  values: ServiceFlagValues,
  defaultMachineId: number,
) {
  const logger = pino({ name, level: values.logLevel });
  // A layout without genMethod has its own server range: default to its last id.
  const layout =
    values.layout === undefined
      ? undefined
      : resolveLayoutOption(values.layout, values.type).layout;
  const machine = await machineIdFromFlags(
    flags,
    layout === undefined || layout.genMethod.bits > 0
      ? defaultMachineId
      : machineIdRanges(layout.widths).server.max,
    (machineId) =>
      logger.info(
        { machineId },
        `no --machine-id given: using ${machineId}, the single-machine default; give each server of a fleet its own id (${serverRange(layout)})`,
      ),
    logger,
  );
  const parts = new RunningParts();
  if ('coordinator' in machine) await parts.share(machine.coordinator);
  if (values.stateDir === undefined) {
    logger.warn(
      {},
      '--no-state-dir: the high-water mark is kept in memory only; a clock stepped back across a restart can repeat ids',
    );
  }
  if (values.authToken === undefined && !isLoopback(values.host)) {
    logger.warn(
      { host: values.host },
      'listening beyond loopback without --auth-token: anyone who reaches this port can issue ids',
    );
  }
  const { host, port, type, authToken, maxBatch, markWindowMs, generators } = values;
  const options = {
    ...('coordinator' in machine ? {} : machine),
    ...{ host, port, type, authToken, maxBatch, markWindowMs, generators, logger },
    ...(values.layout === undefined ? {} : { layout: values.layout }),
    epoch: values.epochMs,
    stateDir: values.stateDir ?? (false as const),
    ...(values.adoptLegacyMarkEpochMs === undefined
      ? {}
      : { adoptLegacyMark: { epoch: values.adoptLegacyMarkEpochMs } }),
  };
  return { values, logger, parts, options };
}

/** SIGTERM/SIGINT close the server gracefully and exit 0; a second signal exits at once. */
export function closeOnSignals(server: { close(): Promise<void> }, logger: Logger): void {
  let signalled = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'signal received: shutting down');
    server.close().then(
      () => {
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** Starts a server with metrics and `--segment-store`'s segments in the process's container. */
export async function startServing<S>(
  { logger, parts }: { logger: Logger; parts: RunningParts },
  flags: Flags,
  start: (shared: { metrics: VestaMetrics; segments?: SegmentService }) => Promise<S>,
) {
  const metrics = createVestaMetrics();
  const store = flagText(flags.segmentStore);
  const segments =
    store === undefined
      ? undefined
      : await parts.start('segments', () => segmentsOfFlag(store, metrics.segmentObserver, logger));
  const shared = segments === undefined ? { metrics } : { metrics, segments: segments.service };
  return parts.closeOnFailure(() => start(shared));
}

/** What a server command has once {@link prepareServer} ran. */
export type ServerStartup = Awaited<ReturnType<typeof prepareServer>>;
