import { VestaError } from '@vesta/core';
import { DEFAULT_ID_SERVER_PORT, startIdServer, type IdServerHandle } from '@vesta/server';
import { Command, Option } from 'commander';
import { addMachineIdOptions, type MachineIdFlags } from './machineIdOptions.js';
import { closeOnSignals, prepareServer } from './serverLifecycle.js';
import { reportCommandError } from './reportCommandError.js';
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
  const command = new Command('server');
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
      'VESTA_STATE_DIR, VESTA_NO_STATE_DIR, VESTA_AUTH_TOKEN, VESTA_MAX_BATCH, VESTA_LOG_LEVEL, VESTA_METRICS_PORT,\n' +
      'VESTA_COORDINATOR, VESTA_COORDINATOR_KEY, VESTA_ADOPT_LEGACY_MARK, ...\n' +
      coordinatorHelp(),
  );
  return command.action(async (given: ServerFlags & ZooKeeperFlags, self: Command) => {
    let server: IdServerHandle;
    try {
      const flags: ServerFlags = withoutZooKeeperFlags(given, flagSourceOf(self));
      const { logger, options } = await prepareServer(
        'vesta-server',
        flags,
        DEFAULTS,
        DEFAULT_SERVER_MACHINE_ID,
      );
      const metricsPort = metricsPortOf(flags.metricsPort);
      server = await startIdServer({
        ...options,
        ...(metricsPort === undefined ? {} : { metricsPort }),
      });
      // Before the 'listening' line: whoever waits for it may signal at once.
      closeOnSignals(server, logger);
      logger.info(
        {
          url: server.url,
          port: server.address.port,
          metricsPort: server.metricsAddress?.port ?? null,
        },
        `vesta server listening on ${server.url}`,
      );
    } catch (error) {
      reportCommandError('server', error);
    }
  });
}
