import { Socket, type AddressInfo } from 'node:net';
import { VestaError, type Logger } from '@vesta/core';
import { createVestaMetrics, type VestaMetrics } from '@vesta/metrics';
import { AggregatorRegistry } from 'prom-client';
import type { RestServer } from '../RestServer.js';
import { startRestServer } from '../startRestServer.js';
import { isClusterMessage, WORKER_ADDRESS_ENV, type ClusterMessage } from './clusterMessages.js';
import { PendingReplies } from './PendingReplies.js';
import type { ResolvedRestClusterOptions, RestClusterSegments } from './RestClusterOptions.js';

const ASK_TIMEOUT_MS = 5000;

type Answer = Extract<ClusterMessage, { vesta: 'answer' }>;

function withFields(logger: Logger, fields: Record<string, unknown>): Logger {
  const at =
    (level: 'info' | 'warn' | 'error' | 'debug') =>
    (more: Record<string, unknown>, message: string) =>
      logger[level]?.({ ...fields, ...more }, message);
  return {
    ...{ info: at('info'), warn: at('warn'), error: at('error') },
    ...(logger.debug === undefined
      ? {}
      : { debug: at('debug'), isLevelEnabled: (l: string) => logger.isLevelEnabled?.(l) ?? true }),
  };
}

function send(message: ClusterMessage, then?: () => void): void {
  if (process.connected) process.send?.(message, undefined, {}, () => then?.());
  else then?.();
}

/** A worker: drains and exits 0 when told, on SIGTERM or without a primary; ignores SIGINT (sent to the group). */
export function runClusterWorker(index: number, options: ResolvedRestClusterOptions) {
  const logger = withFields(options.logger, { worker: index });
  const own = createVestaMetrics();
  // Constructing one makes prom-client answer the primary's requests for this worker's metrics.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([own.registry]);
  const answers = new PendingReplies<Answer | undefined>();
  const ask = async (what: 'health' | 'metrics'): Promise<Answer> => {
    const request = (id: number): void => send({ vesta: 'ask', id, what });
    const answer = await answers.ask(request, ASK_TIMEOUT_MS, () => undefined);
    if (answer === undefined) {
      const why = `the cluster's ${what} did not arrive in ${ASK_TIMEOUT_MS} ms`;
      throw new VestaError('TIMEOUT', why);
    }
    return answer;
  };
  const metrics: VestaMetrics = {
    ...own,
    async render() {
      const answer = await ask('metrics');
      if (answer.status !== 200) throw new VestaError('TIMEOUT', answer.body);
      return { contentType: answer.contentType, body: answer.body };
    },
  };
  const { machineIds, machineIdProvider, machineIdModule } = options;
  // Built in the worker, after `modules`: a coordinator's may first import its package.
  const machine = (async () => {
    if (machineIds !== undefined) return { machineId: machineIds.min + index };
    if (machineIdProvider !== undefined) return { machineIdProvider: machineIdProvider(index) };
    const module = await (machineIdModule as NonNullable<typeof machineIdModule>)(index);
    return { modules: [...(options.server.modules ?? []), module] };
  })();
  const address = JSON.parse(process.env[WORKER_ADDRESS_ENV] ?? 'null') as AddressInfo;
  // The worker's own segment service, closed after its server.
  const segments: Promise<RestClusterSegments | undefined> = Promise.resolve().then(() =>
    options.segments?.({ worker: index, observer: own.segmentObserver }),
  );
  const starting = Promise.all([machine, segments]).then(([source, numbers]) =>
    startRestServer(
      {
        ...options.server,
        ...source,
        metrics,
        logger,
        ...(numbers === undefined ? {} : { segments: numbers.service }),
      },
      {
        health: async () => {
          const answer = await ask('health');
          return { status: answer.status, body: answer.body };
        },
        // The primary listens; 'listening' starts the server's connection timeouts.
        listen: (http) => {
          http.emit('listening');
          return Promise.resolve(address);
        },
      },
    ),
  );

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    starting
      .then((server) => server.close())
      .finally(() => segments.then((numbers) => numbers?.close()))
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'worker shutdown failed');
          process.exit(1);
        },
      );
  };
  let server: RestServer | undefined;
  process.on('message', (message: unknown, handle: unknown) => {
    if (!isClusterMessage(message)) return;
    if (message.vesta === 'connection') {
      if (handle instanceof Socket) {
        if (server !== undefined && !stopping) {
          server.server.emit('connection', handle);
          handle.resume();
        } else handle.destroy();
      }
      send({ vesta: 'took', id: message.id });
    } else if (message.vesta === 'answer') answers.settle(message.id, message);
    else if (message.vesta === 'stop') stop();
    else if (message.vesta === 'health?') {
      const why = `worker ${index} is starting`;
      const notYet = { ok: false, code: 'SERVICE_CLOSED', message: why } as const;
      send({ vesta: 'health!', id: message.id, health: server?.service.health() ?? notYet });
    }
  });
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
  process.on('SIGINT', () => undefined);

  starting.then(
    (started) => {
      server = started;
      send({ vesta: 'ready', machineId: started.service.info().machine });
    },
    (error: unknown) => {
      const code = VestaError.is(error) ? error.code : 'INTERNAL_ERROR';
      const message = error instanceof Error ? error.message : String(error);
      const failed = (): void => send({ vesta: 'failed', code, message }, () => process.exit(1));
      // Nothing was served: a segment service built lets go of its store first.
      segments.then((numbers) => numbers?.close()).then(failed, failed);
    },
  );
  return new Promise<never>(() => undefined);
}
