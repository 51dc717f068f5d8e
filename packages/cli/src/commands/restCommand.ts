import {
  DEFAULT_REST_MAX_BATCH,
  DEFAULT_REST_PORT,
  startRestServer,
  type RestServer,
} from '@vesta/rest';
import { Command } from 'commander';
import { addMachineIdOptions, type MachineIdFlags } from './machineIdOptions.js';
import { closeOnSignals, prepareServer } from './serverLifecycle.js';
import { reportCommandError } from './reportCommandError.js';
import { addServiceOptions, type ServiceFlags } from './serviceFlags.js';

/** The machine id of a single REST server when none is given: the top of the server range. */
export const DEFAULT_REST_MACHINE_ID = 1023;

const DEFAULTS = { port: DEFAULT_REST_PORT, maxBatch: DEFAULT_REST_MAX_BATCH } as const;

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
      const { values, logger, options } = prepareServer(
        'vesta-rest',
        flags,
        DEFAULTS,
        DEFAULT_REST_MACHINE_ID,
      );
      server = await startRestServer(options);
      // Before the 'listening' line: whoever waits for it may signal at once.
      closeOnSignals(server, logger);
      const info = server.service.info();
      const base = reachableUrl(server);
      logger.info(
        {
          url: server.url,
          port: server.port,
          machineId: info.machine,
          layout: info.preset,
          type: info.typeName,
          epoch: info.epoch,
          stateDir: values.stateDir ?? null,
        },
        `vesta rest listening on ${server.url}`,
      );
      const auth =
        values.authToken === undefined ? '' : ' -H "Authorization: Bearer $VESTA_AUTH_TOKEN"';
      logger.info({ try: `curl -s${auth} ${base}/genid` }, `try: curl -s${auth} ${base}/genid`);
    } catch (error) {
      reportCommandError('rest', error);
    }
  });
}
