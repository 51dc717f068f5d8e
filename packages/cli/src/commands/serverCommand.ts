import { portOption } from '@vesta/core/kit';
import { DEFAULT_ID_SERVER_PORT } from '@vesta/server/defaults';
import { Command } from 'commander';
import { addSchemaFlags, type Flags } from './addSchemaFlags.js';
import { coordinatorHelp } from './coordinatorOf.js';
import { reportCommandError } from './reportCommandError.js';
import { segmentStoreFlag } from './segmentStoreFlag.js';
import { addServiceOptions, resolveServiceFlags } from './serviceFlags.js';

const DEFAULTS = { port: DEFAULT_ID_SERVER_PORT, maxBatch: 100_000 } as const;

/** `vesta server`: the central TCP id server (genMethod 1, @vesta/server's PROTOCOL.md). */
export function serverCommand(): Command {
  const command = addSchemaFlags(addServiceOptions(new Command('server'), DEFAULTS), {
    metricsPort: {
      schema: portOption
        .optional()
        .describe('serve /metrics and /health over HTTP on this port (0: any free port)'),
      arg: 'port',
    },
    grpcPort: {
      schema: portOption
        .optional()
        .describe(
          'also serve the gRPC service (vesta.v1.Vesta, grpc.health.v1) on this port, over the same ids (0: any free port)',
        ),
      arg: 'port',
    },
    segmentStore: segmentStoreFlag('SEGMENT requests (IdClient.segment)'),
  });
  command.addHelpText('after', coordinatorHelp());
  return command.action(async (flags: Flags) => {
    try {
      const values = resolveServiceFlags(flags, DEFAULTS);
      // The server (its protocol, metrics, pino) loads once the shared flags are good.
      await (await import('./serveIdServer.js')).serveIdServer(flags, values);
    } catch (error) {
      reportCommandError('server', error);
    }
  });
}
