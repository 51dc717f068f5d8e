import cluster from 'node:cluster';
import { join } from 'node:path';
import { startRestCluster, startRestServer, type RestCluster, type RestServer } from '@vesta/rest';
import type { ContainerModule } from 'inversify';
import { reportCommandError } from './reportCommandError.js';
import type { planRestWorkers } from './restWorkers.js';
import { segmentsOfFlag, segmentStoreOf } from './segmentStoreFlag.js';
import {
  closeOnSignals,
  prepareServer,
  startServing,
  type ServerStartup,
} from './serverLifecycle.js';
import { flagText, type Flags } from './addSchemaFlags.js';
import { coordinatorKey, machineIdFromFlags, type ServiceFlagValues } from './serviceFlags.js';

/** The machine id of a single REST server when none is given: the top of the server range. */
export const DEFAULT_REST_MACHINE_ID = 1023;

/** The server's options with the scramble key, when one is given (the server keeps only round keys). */
function withScrambleKey<T extends object>(options: T, flags: Flags): T {
  const scrambleKey = flagText(flags.scrambleKey);
  return scrambleKey === undefined ? options : { ...options, scrambleKey };
}

/** The curl line to try, logged once the server listens (a wildcard address through loopback). */
function logTryLine(startup: ServerStartup, { host, port, url }: RestServer | RestCluster): void {
  const base =
    host === '0.0.0.0' ? `http://127.0.0.1:${port}` : host === '::' ? `http://[::1]:${port}` : url;
  const auth =
    startup.values.authToken === undefined ? '' : ' -H "Authorization: Bearer $VESTA_AUTH_TOKEN"';
  startup.logger.info({ try: `curl -s${auth} ${base}/genid` }, `try: curl -s${auth} ${base}/genid`);
}

/** One process on one machine id. */
async function serveSingle(
  flags: Flags,
  values: ServiceFlagValues,
  note: string | undefined,
): Promise<void> {
  const startup = await prepareServer('vesta-rest', flags, values, DEFAULT_REST_MACHINE_ID);
  const { logger, options, parts } = startup;
  if (note !== undefined) logger.info({ workers: 1 }, note);
  const server = await startServing(startup, flags, (shared) =>
    startRestServer({ ...withScrambleKey(options, flags), ...shared }, { parts }),
  );
  // Before the 'listening' line: whoever waits for it may signal at once.
  closeOnSignals(server, logger);
  const info = server.service.info();
  logger.info(
    {
      url: server.url,
      port: server.port,
      machineId: info.machine,
      workers: 1,
      layout: info.preset,
      type: info.typeName,
      epoch: info.epoch,
      stateDir: values.stateDir ?? null,
    },
    `vesta rest listening on ${server.url}`,
  );
  logTryLine(startup, server);
}

/** Worker processes on one port, each leasing under `<key>#<worker>` on a coordinator. */
async function serveCluster(
  flags: Flags,
  values: ServiceFlagValues,
  plan: ReturnType<typeof planRestWorkers>,
): Promise<void> {
  // The shared options are built as for one server on the range's first id, then left out.
  const single: Flags = {
    ...flags,
    machineId: String(plan.source === 'range' ? plan.machineIds.min : DEFAULT_REST_MACHINE_ID),
    coordinator: undefined,
    coordinatorKey: undefined,
  };
  const startup = await prepareServer('vesta-rest', single, values, DEFAULT_REST_MACHINE_ID);
  const { logger } = startup;
  const shared: Record<string, unknown> = { ...startup.options };
  delete shared['machineId'];
  if (plan.source === 'range' && plan.note !== undefined)
    logger.info({ workers: plan.workers }, plan.note);
  // Each worker leases its own id under `<key>#<worker>`, its lease cached in a dir of its own.
  const leasedModule = async (worker: number) => {
    const machine = await machineIdFromFlags(
      {
        ...flags,
        coordinatorKey: `${coordinatorKey(flags)}#${worker}`,
        stateDir:
          values.stateDir === undefined
            ? false
            : join(values.stateDir, `coordinator-worker-${worker}`),
      },
      DEFAULT_REST_MACHINE_ID,
      () => undefined,
      logger,
    );
    return (machine as { coordinator: ContainerModule }).coordinator;
  };
  // Built once here (it validates, it does not connect): a bad --coordinator is refused once.
  if (plan.source === 'coordinator') await leasedModule(0);
  const segmentStore = flagText(flags.segmentStore);
  // Checked once here too (scheme, package; it does not connect).
  if (segmentStore !== undefined && cluster.isPrimary)
    await (await segmentStoreOf(segmentStore)).close();
  const rest = await startRestCluster({
    ...withScrambleKey(shared as Omit<typeof startup.options, 'machineId'>, flags),
    workers: plan.workers,
    // Each worker claims its own ranges (and hands them back when it stops).
    ...(segmentStore === undefined
      ? {}
      : { segments: ({ observer }) => segmentsOfFlag(segmentStore, observer, logger) }),
    ...(plan.source === 'range'
      ? { machineIds: plan.machineIds }
      : { machineIdModule: leasedModule }),
  });
  closeOnSignals(rest, logger);
  rest.stopped.catch((error: unknown) => {
    reportCommandError('rest', error);
    logger.flush();
    process.exit(1);
  });
  logger.info(
    {
      url: rest.url,
      port: rest.port,
      workers: rest.workers(),
      machineIds: rest.workers().map((worker) => worker.machineId),
      type: values.type,
      epoch: new Date(values.epochMs).toISOString(),
      stateDir: values.stateDir ?? null,
    },
    `vesta rest listening on ${rest.url} (${rest.workers().length} workers)`,
  );
  logTryLine(startup, rest);
}

/** What `vesta rest` runs once its flags are checked (imported only then). */
export async function serveRest(
  flags: Flags,
  values: ServiceFlagValues,
  plan: ReturnType<typeof planRestWorkers>,
): Promise<void> {
  if (plan.workers > 1) await serveCluster(flags, values, plan);
  else if (plan.source === 'range') {
    await serveSingle({ ...flags, machineId: String(plan.machineIds.min) }, values, plan.note);
  } else await serveSingle(flags, values, plan.source === 'single' ? plan.note : undefined);
}
