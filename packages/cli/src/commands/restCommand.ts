import {
  DEFAULT_REST_MAX_BATCH,
  DEFAULT_REST_PORT,
  startRestServer,
  type RestServer,
} from '@vesta/rest';
import { Command } from 'commander';
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

/** The machine id of a single REST server when none is given: the top of the server range. */
export const DEFAULT_REST_MACHINE_ID = 1023;

const DEFAULTS = { port: DEFAULT_REST_PORT, maxBatch: DEFAULT_REST_MAX_BATCH } as const;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** The host to put in the curl line: a wildcard address is reached through loopback. */
function reachableUrl(server: RestServer): string {
  if (server.host === '0.0.0.0') return `http://127.0.0.1:${server.port}`;
  if (server.host === '::') return `http://[::1]:${server.port}`;
  return server.url;
}

/**
 * `vesta rest`: the REST id server (genMethod 2). Logs JSON lines (pino) to stdout, among
 * them where it listens and a curl line to try. SIGTERM/SIGINT stop it gracefully (requests
 * in flight finish, the high-water mark is persisted) and exit 0; a second signal exits at once.
 */
export function restCommand(): Command {
  const command = new Command('rest').description(
    'run the REST id server (genMethod 2, machine id 924-1023)',
  );
  addServiceOptions(command, DEFAULTS);
  addMachineIdOptions(command);
  command.addHelpText(
    'after',
    '\nEvery flag has an environment variable: VESTA_HOST, VESTA_PORT, VESTA_MACHINE_ID, VESTA_TYPE,\n' +
      'VESTA_EPOCH, VESTA_STATE_DIR, VESTA_NO_STATE_DIR, VESTA_AUTH_TOKEN, VESTA_MAX_BATCH, VESTA_LOG_LEVEL.',
  );
  return command.action(async (flags: ServiceFlags & MachineIdFlags) => {
    let server: RestServer;
    try {
      const values = resolveServiceFlags(flags, DEFAULTS);
      const logger = pino({ name: 'vesta-rest', level: values.logLevel });
      const machine = machineIdFromFlags(
        flags,
        DEFAULT_REST_MACHINE_ID,
        (machineId) =>
          logger.info(
            { machineId },
            `no --machine-id given: using ${machineId}, the single-machine default; give each server of a fleet its own id (924-1023)`,
          ),
        logger,
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
      server = await startRestServer({
        ...machine,
        host: values.host,
        port: values.port,
        type: values.type,
        epoch: values.epochMs,
        ...(values.stateDir === undefined ? {} : { stateDir: values.stateDir }),
        ...(values.authToken === undefined ? {} : { authToken: values.authToken }),
        maxBatch: values.maxBatch,
        logger,
      });
      const info = server.service.info();
      const base = reachableUrl(server);
      logger.info(
        {
          url: server.url,
          port: server.port,
          machineId: info.machine,
          type: info.typeName,
          epoch: info.epoch,
          stateDir: values.stateDir ?? null,
        },
        `vesta rest listening on ${server.url}`,
      );
      const auth =
        values.authToken === undefined ? '' : ' -H "Authorization: Bearer $VESTA_AUTH_TOKEN"';
      logger.info({ try: `curl -s${auth} ${base}/genid` }, `try: curl -s${auth} ${base}/genid`);
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
      reportCommandError('rest', error);
    }
  });
}
