import { DEFAULT_ID_SERVER_PORT } from '@vesta/server/defaults';
import { Command, Option } from 'commander';
import { coordinatorHelp } from '../coordinators/coordinatorHelp.js';
import { addMachineIdOptions } from './machineIdOptions.js';
import { reportCommandError } from './reportCommandError.js';
import type { ServerFlags } from './serveIdServer.js';
import { segmentStoreOption } from './segmentStoreFlag.js';
import { addServiceOptions, resolveServiceFlags } from './serviceFlags.js';

/** The largest GENERATE count `vesta server` accepts unless --max-batch says otherwise. */
export const DEFAULT_SERVER_MAX_BATCH = 100_000;

const DEFAULTS = { port: DEFAULT_ID_SERVER_PORT, maxBatch: DEFAULT_SERVER_MAX_BATCH } as const;

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
  return command.action(async (flags: ServerFlags) => {
    try {
      const values = resolveServiceFlags(flags, DEFAULTS);
      // The server (its protocol, metrics, pino) loads once the shared flags are good.
      await (await import('./serveIdServer.js')).serveIdServer(flags, values);
    } catch (error) {
      reportCommandError('server', error);
    }
  });
}
