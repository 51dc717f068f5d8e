import { VestaError, type Logger } from '@vesta/core';
import { importOptional } from '@vesta/core/kit';
import type * as GrpcModule from '@vesta/grpc';
import { createVestaMetrics } from '@vesta/metrics';
import { DEFAULT_ID_SERVER_PORT, startIdServer, type IdServerHandle } from '@vesta/server';
import { Command, Option } from 'commander';
import { addMachineIdOptions, type MachineIdFlags } from './machineIdOptions.js';
import { closeOnSignals, prepareServer } from './serverLifecycle.js';
import { reportCommandError } from './reportCommandError.js';
import { segmentsOfFlag, segmentStoreOption } from './segmentStoreFlag.js';
import { addServiceOptions, type ServiceFlags } from './serviceFlags.js';
import { flagSourceOf, withoutZooKeeperFlags, type ZooKeeperFlags } from './zooKeeperFlags.js';
import { coordinatorHelp } from '../coordinators/coordinatorHelp.js';

/** The machine id of a single central server when none is given: the top of the server range. */
export const DEFAULT_SERVER_MACHINE_ID = 1023;

/** The largest GENERATE count `vesta server` accepts unless --max-batch says otherwise. */
export const DEFAULT_SERVER_MAX_BATCH = 100_000;

const DEFAULTS = { port: DEFAULT_ID_SERVER_PORT, maxBatch: DEFAULT_SERVER_MAX_BATCH } as const;

interface ServerFlags extends ServiceFlags, MachineIdFlags {
  metricsPort?: string;
  grpcPort?: string;
  segmentStore?: string;
}

function portFlag(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[0-9]{1,5}$/.test(raw) || Number(raw) > 65_535) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `${flag} must be a whole number from 0 to 65535, got ${JSON.stringify(raw)}`,
    );
  }
  return Number(raw);
}

/** What --grpc-port uses of @vesta/grpc. */
type GrpcPackage = typeof GrpcModule;

/** @vesta/grpc, an optional package: PACKAGE_MISSING when it is not installed. */
function loadGrpc(): Promise<GrpcPackage> {
  return importOptional('@vesta/grpc', () => import('@vesta/grpc'), '--grpc-port needs');
}

/**
 * The gRPC listener beside the TCP one, over the same id service and generators (same
 * genMethod, machine id and state), when `--grpc-port` is given.
 */
async function startGrpcBeside(
  { startGrpcServer }: GrpcPackage,
  server: IdServerHandle,
  port: number,
  options: { host?: string; authToken?: string },
  logger: Logger,
): Promise<{ port: number; close(): Promise<void> }> {
  const grpc = await startGrpcServer({
    service: server.service,
    generators: server.generators,
    port,
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
    metrics: server.metrics,
    logger,
  });
  return { port: grpc.address.port, close: () => grpc.close() };
}

/**
 * `vesta server`: the central TCP id server (genMethod 1, binary protocol of
 * @vesta/server's PROTOCOL.md). Logs JSON lines (pino) to stdout; /metrics and /health on
 * --metrics-port. SIGTERM/SIGINT stop it gracefully (GOAWAY, requests in flight answered,
 * high-water mark persisted) and exit 0; a second signal exits at once.
 */
export function serverCommand(): Command {
  const command = new Command('server');
  addServiceOptions(command, DEFAULTS);
  addMachineIdOptions(command);
  command.addOption(
    new Option(
      '--metrics-port <port>',
      'serve /metrics and /health over HTTP on this port (0: any free port)',
    ).env('VESTA_METRICS_PORT'),
  );
  command.addOption(
    new Option(
      '--grpc-port <port>',
      'also serve the gRPC service (vesta.v1.Vesta, grpc.health.v1) on this port, over the same ids (0: any free port)',
    ).env('VESTA_GRPC_PORT'),
  );
  command.addOption(segmentStoreOption('SEGMENT requests (IdClient.segment)'));
  command.addHelpText(
    'after',
    '\nEvery flag has an environment variable: VESTA_HOST, VESTA_PORT, VESTA_MACHINE_ID, VESTA_TYPE, VESTA_EPOCH,\n' +
      'VESTA_STATE_DIR, VESTA_NO_STATE_DIR, VESTA_AUTH_TOKEN, VESTA_MAX_BATCH, VESTA_LOG_LEVEL, VESTA_METRICS_PORT,\n' +
      'VESTA_GRPC_PORT, VESTA_SEGMENT_STORE, ' +
      'VESTA_COORDINATOR, VESTA_COORDINATOR_KEY, VESTA_ADOPT_LEGACY_MARK, ...\n' +
      coordinatorHelp(),
  );
  return command.action(async (given: ServerFlags & ZooKeeperFlags, self: Command) => {
    let server: IdServerHandle;
    try {
      const flags: ServerFlags = await withoutZooKeeperFlags(given, flagSourceOf(self));
      const { logger, options } = await prepareServer(
        'vesta-server',
        flags,
        DEFAULTS,
        DEFAULT_SERVER_MACHINE_ID,
      );
      const metricsPort = portFlag(flags.metricsPort, '--metrics-port');
      const grpcPort = portFlag(flags.grpcPort, '--grpc-port');
      // Loaded before the server starts: a missing package refuses the start, not half of it.
      const grpcPackage = grpcPort === undefined ? undefined : await loadGrpc();
      // One set of metrics for the server and its segment service (claims, numbers buffered).
      const metrics = createVestaMetrics();
      const segments =
        flags.segmentStore === undefined
          ? undefined
          : await segmentsOfFlag(flags.segmentStore, metrics.segmentObserver);
      server = await startIdServer({
        ...options,
        metrics,
        ...(metricsPort === undefined ? {} : { metricsPort }),
        ...(segments === undefined ? {} : { segments: segments.service }),
      }).catch(async (error: unknown) => {
        await segments?.close();
        throw error;
      });
      let grpc: { port: number; close(): Promise<void> } | undefined;
      if (grpcPackage !== undefined && grpcPort !== undefined) {
        try {
          grpc = await startGrpcBeside(grpcPackage, server, grpcPort, options, logger);
        } catch (error) {
          await server.close();
          await segments?.close();
          throw error;
        }
      }
      const tcp = server;
      // Before the 'listening' line: whoever waits for it may signal at once. gRPC stops
      // first, then the TCP server closes the id service (its mark persisted), then the
      // segments hand their buffered numbers back.
      closeOnSignals(
        {
          close: async () => {
            try {
              await grpc?.close();
              await tcp.close();
            } finally {
              await segments?.close();
            }
          },
        },
        logger,
      );
      logger.info(
        {
          url: server.url,
          port: server.address.port,
          metricsPort: server.metricsAddress?.port ?? null,
          grpcPort: grpc?.port ?? null,
        },
        `vesta server listening on ${server.url}`,
      );
    } catch (error) {
      reportCommandError('server', error);
    }
  });
}
