import { VestaError } from '@vesta/core';
import { DEFAULT_ID_SERVER_PORT, startIdServer, type IdServerHandle } from '@vesta/server';
import { Command, Option } from 'commander';
import { pino } from 'pino';
import {
  addMachineIdOptions,
  machineIdFromFlags,
  type MachineIdFlags,
} from './machineIdOptions.js';
import {
  addServiceOptions,
  reportCommandError,
  resolveServiceFlags,
  type ServiceFlags,
} from './serviceFlags.js';

/** The machine id of a single central server when none is given: the top of the server range. */
export const DEFAULT_SERVER_MACHINE_ID = 1023;

/** The largest GENERATE count `vesta server` accepts unless --max-batch says otherwise. */
export const DEFAULT_SERVER_MAX_BATCH = 100_000;

const DEFAULTS = { port: DEFAULT_ID_SERVER_PORT, maxBatch: DEFAULT_SERVER_MAX_BATCH } as const;

interface ServerFlags extends ServiceFlags, MachineIdFlags {
  metricsPort?: string;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

function metricsPortOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[0-9]{1,5}$/.test(raw) || Number(raw) > 65_535) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--metrics-port must be a whole number from 0 to 65535, got ${JSON.stringify(raw)}`,
    );
  }
  return Number(raw);
}

/**
 * `vesta server`: the central TCP id server (genMethod 1, binary protocol of
 * @vesta/server's PROTOCOL.md). Logs JSON lines (pino) to stdout; /metrics and /health on
 * --metrics-port. SIGTERM/SIGINT stop it gracefully (GOAWAY, requests in flight answered,
 * high-water mark persisted) and exit 0; a second signal exits at once.
 */
export function serverCommand(): Command {
  const command = new Command('server').description(
    'run the central TCP id server (genMethod 1, machine id 924-1023)',
  );
  addServiceOptions(command, DEFAULTS);
  addMachineIdOptions(command);
  command.addOption(
    new Option(
      '--metrics-port <port>',
      'serve /metrics and /health over HTTP on this port (0: any free port)',
    ).env('VESTA_METRICS_PORT'),
  );
  command.addHelpText(
    'after',
    '\nEvery flag has an environment variable: VESTA_HOST, VESTA_PORT, VESTA_MACHINE_ID, VESTA_TYPE, VESTA_EPOCH,\n' +
      'VESTA_STATE_DIR, VESTA_NO_STATE_DIR, VESTA_AUTH_TOKEN, VESTA_MAX_BATCH, VESTA_LOG_LEVEL, VESTA_METRICS_PORT.',
  );
  return command.action(async (flags: ServerFlags) => {
    let server: IdServerHandle;
    try {
      const values = resolveServiceFlags(flags, DEFAULTS);
      const metricsPort = metricsPortOf(flags.metricsPort);
      const logger = pino({ name: 'vesta-server', level: values.logLevel });
      const machine = machineIdFromFlags(flags, DEFAULT_SERVER_MACHINE_ID, (machineId) =>
        logger.info(
          { machineId },
          `no --machine-id given: using ${machineId}, the single-machine default; give each server of a fleet its own id (924-1023)`,
        ),
      );
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
      server = await startIdServer({
        ...machine,
        host: values.host,
        port: values.port,
        type: values.type,
        epoch: values.epochMs,
        stateDir: values.stateDir ?? false,
        ...(values.authToken === undefined ? {} : { authToken: values.authToken }),
        ...(metricsPort === undefined ? {} : { metricsPort }),
        maxBatch: values.maxBatch,
        logger,
      });
      logger.info(
        {
          url: server.url,
          port: server.address.port,
          metricsPort: server.metricsAddress?.port ?? null,
        },
        `vesta server listening on ${server.url}`,
      );
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
    } catch (error) {
      reportCommandError('server', error);
    }
  });
}
