import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { DEFAULT_REST_MAX_BATCH, DEFAULT_REST_PORT } from '@vesta/rest/defaults';
import { Command } from 'commander';
import { addSchemaFlags, type Flags } from './addSchemaFlags.js';
import { coordinatorHelp } from './coordinatorOf.js';
import { SCRAMBLE_KEY } from './idFormFlags.js';
import { reportCommandError } from './reportCommandError.js';
import { planRestWorkers, REST_WORKER_FLAGS } from './restWorkers.js';
import { segmentStoreFlag } from './segmentStoreFlag.js';
import { addServiceOptions, resolveServiceFlags } from './serviceFlags.js';

const DEFAULTS = { port: DEFAULT_REST_PORT, maxBatch: DEFAULT_REST_MAX_BATCH } as const;

/** `vesta rest`: the REST id server (genMethod 2), in one process or `--workers`. */
export function restCommand(): Command {
  const command = addSchemaFlags(addServiceOptions(new Command('rest'), DEFAULTS), {
    ...REST_WORKER_FLAGS,
    scrambleKey: SCRAMBLE_KEY,
    segmentStore: segmentStoreFlag("/segment/{key} and Leaf's /api/segment/get/{key}"),
  });
  command.addHelpText('after', coordinatorHelp());
  return command.action(async (flags: Flags) => {
    try {
      const plan = planRestWorkers(flags, availableParallelism());
      const values = resolveServiceFlags(flags, DEFAULTS);
      // The server (express, metrics, pino) loads once the flags are good.
      await (await import('./serveRest.js')).serveRest(flags, values, plan);
    } catch (error) {
      reportCommandError('rest', error);
      // A cluster worker's IPC channel would keep it alive: it exits, and the primary decides.
      if (cluster.isWorker) process.exit(1);
    }
  });
}
