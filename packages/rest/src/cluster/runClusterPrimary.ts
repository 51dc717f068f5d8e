import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import { VestaError, type IdServiceHealth, type VestaErrorCode } from '@vesta/core';
import { AggregatorRegistry } from 'prom-client';
import {
  isClusterMessage,
  WORKER_ADDRESS_ENV,
  WORKER_INDEX_ENV,
  type ClusterMessage,
} from './clusterMessages.js';
import { ConnectionDispatcher, type DispatchTarget } from './ConnectionDispatcher.js';
import { PendingReplies } from './PendingReplies.js';
import type { RestCluster, RestClusterWorker } from './RestCluster.js';
import type { ResolvedRestClusterOptions } from './RestClusterOptions.js';

const HEALTH_TIMEOUT_MS = 2000;
/** Beyond the shutdown timeout, how long a draining worker may take before SIGKILL. */
const EXIT_GRACE_MS = 10_000;
const JSON_TYPE = 'application/json; charset=utf-8';

interface Slot {
  readonly index: number;
  machineId: number | undefined;
  worker?: Worker | undefined;
  exited?: Promise<unknown> | undefined;
  ready: boolean;
  /** When its workers died after serving, within the last minute. */
  deaths: number[];
}

/** The primary: forks a worker per slot, dispatches connections, answers `/health` and `/metrics`, restarts. */
export async function runClusterPrimary(options: ResolvedRestClusterOptions): Promise<RestCluster> {
  const { logger } = options;
  const aggregator = new AggregatorRegistry();
  const healthReplies = new PendingReplies<IdServiceHealth>();
  const slots: Slot[] = Array.from({ length: options.workers }, (_, index) => ({
    index,
    machineId: options.machineIds === undefined ? undefined : options.machineIds.min + index,
    ready: false,
    deaths: [],
  }));
  let closing: Promise<void> | undefined;
  let fatal: VestaError | undefined;
  let settleStopped!: { resolve: () => void; reject: (error: unknown) => void };
  const stopped = new Promise<void>((resolve, reject) => {
    settleStopped = { resolve, reject };
  });
  // Not awaited is not an unhandled rejection.
  stopped.catch(() => undefined);

  // A worker may be dying: a channel closed under the send must not be an uncaught error.
  const reply = (worker: Worker, message: ClusterMessage): void => {
    if (!worker.isConnected()) return;
    try {
      worker.send(message, (error: Error | null) => {
        if (error !== null)
          logger.info({ err: error.message }, 'a worker left before a message reached it');
      });
    } catch {
      // Closed since the check: the same as leaving.
    }
  };

  const healthOf = (slot: Slot): IdServiceHealth | Promise<IdServiceHealth> => {
    const worker = slot.worker;
    if (worker === undefined || !slot.ready || !worker.isConnected()) {
      const message = `worker ${slot.index} is not serving (${closing ? 'stopping' : 'restarting'})`;
      return { ok: false, code: 'SERVICE_CLOSED', message };
    }
    const message = `worker ${slot.index} did not answer in ${HEALTH_TIMEOUT_MS} ms`;
    const ask = (id: number): void => reply(worker, { vesta: 'health?', id });
    const timedOut = (): IdServiceHealth => ({ ok: false, code: 'TIMEOUT', message });
    return healthReplies.ask(ask, HEALTH_TIMEOUT_MS, timedOut);
  };

  const clusterHealth = async (): Promise<{ status: number; body: string }> => {
    const workers = await Promise.all(
      slots.map(async (slot) => {
        const health = await healthOf(slot);
        const error = health.ok ? undefined : { code: health.code, message: health.message };
        const status = health.ok ? 'ok' : 'unavailable';
        const report = { worker: slot.index, machineId: slot.machineId ?? null, status };
        return error === undefined ? report : { ...report, error };
      }),
    );
    const error = workers.find((report) => 'error' in report)?.error;
    if (!error) return { status: 200, body: JSON.stringify({ status: 'ok', workers }) };
    return { status: 503, body: JSON.stringify({ status: 'unavailable', error, workers }) };
  };

  const answer = (worker: Worker, id: number, what: 'health' | 'metrics'): void => {
    const send = (status: number, contentType: string, body: string): void =>
      reply(worker, { vesta: 'answer', id, status, contentType, body });
    if (what === 'health') {
      void clusterHealth().then(({ status, body }) => send(status, JSON_TYPE, body));
      return;
    }
    aggregator.clusterMetrics().then(
      (body) => send(200, aggregator.contentType, body),
      (error: unknown) => {
        const why = error instanceof Error ? error.message : String(error);
        send(504, JSON_TYPE, `the workers' metrics could not be gathered: ${why}`);
      },
    );
  };

  /** Resolves once the worker serves; rejects if it exits first. */
  const fork = (slot: Slot): Promise<void> => {
    const worker = cluster.fork({
      [WORKER_INDEX_ENV]: String(slot.index),
      [WORKER_ADDRESS_ENV]: JSON.stringify(dispatcher.address),
    });
    const target: DispatchTarget = { worker, handedOff: new Map() };
    slot.worker = worker;
    slot.ready = false;
    slot.exited = once(worker, 'exit');
    return new Promise<void>((resolve, reject) => {
      let failure: VestaError | undefined;
      const details = { worker: slot.index };
      worker.on('error', (error) =>
        logger.warn({ err: error, worker: slot.index }, 'worker IPC error'),
      );
      worker.on('message', (message: unknown) => {
        if (!isClusterMessage(message)) return;
        if (message.vesta === 'ready') {
          slot.ready = true;
          slot.machineId = message.machineId;
          dispatcher.serve(target);
          resolve();
        } else if (message.vesta === 'took') dispatcher.took(target, message.id);
        else if (message.vesta === 'ask') answer(worker, message.id, message.what);
        else if (message.vesta === 'health!') healthReplies.settle(message.id, message.health);
        else if (message.vesta === 'failed') {
          failure = new VestaError(message.code as VestaErrorCode, message.message, { details });
        }
      });
      worker.once('exit', (code: number | null, signal: NodeJS.Signals | null) => {
        const served = slot.ready;
        slot.ready = false;
        dispatcher.died(target);
        if (slot.worker === worker) slot.worker = undefined;
        if (served) return onDeath(slot, worker.process.pid, code, signal);
        const why = `worker ${slot.index} exited (${signal ?? String(code)}) before it served`;
        reject(failure ?? new VestaError('INTERNAL_ERROR', why, { details }));
      });
    });
  };

  const stopAll = async (): Promise<void> => {
    dispatcher.close();
    const live = slots.filter((slot) => slot.worker !== undefined);
    for (const slot of live) if (slot.worker !== undefined) reply(slot.worker, { vesta: 'stop' });
    const killer = setTimeout(() => {
      for (const slot of live) {
        if (slot.worker === undefined) continue;
        const why = 'worker still running past the shutdown timeout: SIGKILL';
        logger.warn({ worker: slot.index }, why);
        slot.worker.process.kill('SIGKILL');
      }
    }, options.shutdownTimeoutMs + EXIT_GRACE_MS);
    try {
      await Promise.all(live.map((slot) => slot.exited));
    } finally {
      clearTimeout(killer);
    }
  };

  const close = (): Promise<void> => {
    closing ??= (async () => {
      logger.info({ workers: slots.length }, 'stopping every worker: finishing requests in flight');
      await stopAll();
      logger.info({}, 'every worker stopped');
      if (fatal === undefined) settleStopped.resolve();
      else settleStopped.reject(fatal);
    })();
    return closing;
  };

  const stopOnFailure = (error: VestaError): void => {
    if (closing !== undefined) return;
    fatal = error;
    logger.error({ err: error, code: error.code }, `stopping the cluster: ${error.message}`);
    void close();
  };

  function onDeath(
    slot: Slot,
    pid: number | undefined,
    code: number | null,
    signal: string | null,
  ) {
    if (closing !== undefined) return;
    // Monotonic, so a stepped wall clock does not stretch the minute.
    const now = performance.now();
    slot.deaths = slot.deaths.filter((at) => now - at < 60_000);
    slot.deaths.push(now);
    const fields = { worker: slot.index, machineId: slot.machineId, pid, code, signal };
    const how = signal ?? String(code);
    if (slot.deaths.length > options.maxRestartsPerMinute) {
      const why = `worker ${slot.index} (machine id ${String(slot.machineId)}) died ${slot.deaths.length} times within a minute (last: ${how})`;
      return stopOnFailure(new VestaError('INTERNAL_ERROR', why, { details: fields }));
    }
    logger.error(fields, `worker ${slot.index} died (${how}): restarting it on its machine id`);
    fork(slot).then(
      () =>
        logger.info({ ...fields, pid: slot.worker?.process.pid }, `worker ${slot.index} restarted`),
      (error: unknown) => {
        const failed = VestaError.is(error) ? error.code : 'INTERNAL_ERROR';
        const why = `worker ${slot.index} could not restart: ${error instanceof Error ? error.message : String(error)}`;
        stopOnFailure(new VestaError(failed, why, { cause: error, details: fields }));
      },
    );
  }

  const dispatcher = await ConnectionDispatcher.listen(options.host, options.port, logger);
  logger.info({ workers: slots.length }, `starting ${slots.length} workers`);
  try {
    await Promise.all(slots.map(fork));
  } catch (error) {
    closing = stopAll();
    await closing;
    settleStopped.resolve();
    throw error;
  }
  const address = dispatcher.address;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return Object.freeze({
    url: `http://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    workers: (): RestClusterWorker[] =>
      slots.flatMap((slot) =>
        slot.worker?.process.pid === undefined || slot.machineId === undefined
          ? []
          : [{ index: slot.index, machineId: slot.machineId, pid: slot.worker.process.pid }],
      ),
    stopped,
    close,
  });
}
