import type { EventEmitter } from 'node:events';
import { VestaError } from '@vesta/core';
import type { ClientMetrics } from './ClientMetrics.js';
import type { IdClientEvents } from './IdClientEvents.js';
import type { ResolvedIdClientOptions } from './IdClientOptions.js';
import { ProtocolConnection } from './ProtocolConnection.js';
import type { ServerEndpoint } from './ServerEndpoint.js';
import type { ServerLayoutReference } from './ServerLayoutReference.js';
import { startKeepAlive } from './startKeepAlive.js';

/**
 * How long to wait before probing a down server again: `probeIntervalMs` doubled per failure,
 * at most `maxProbeIntervalMs`, +-25% jitter so that clients do not probe a restarted server in step.
 */
export function probeBackoffMs(
  failures: number,
  probeIntervalMs: number,
  maxProbeIntervalMs: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(maxProbeIntervalMs, probeIntervalMs * 2 ** Math.min(20, failures - 1));
  return Math.round(base * (0.75 + random() * 0.5));
}

/**
 * The state of the client's servers: each probed (a handshake per connection), checked against
 * the shared layout and the machine ids of the others, then up, down (probed again with backoff)
 * or refused (probed at the longest interval); connections watched for close, GOAWAY and
 * timeouts, idle ones pinged so a dead one is found before a call needs it.
 */
export class EndpointProber {
  readonly #endpoints: readonly ServerEndpoint[];
  readonly #options: ResolvedIdClientOptions;
  readonly #layout: ServerLayoutReference;
  readonly #metrics: ClientMetrics;
  readonly #events: Pick<EventEmitter<IdClientEvents>, 'emit'>;
  #closed = false;
  #maxBatch = Number.MAX_SAFE_INTEGER;
  #stopKeepAlive: (() => void) | undefined;

  constructor(
    endpoints: readonly ServerEndpoint[],
    options: ResolvedIdClientOptions,
    layout: ServerLayoutReference,
    metrics: ClientMetrics,
    events: Pick<EventEmitter<IdClientEvents>, 'emit'>,
  ) {
    this.#endpoints = endpoints;
    this.#options = options;
    this.#layout = layout;
    this.#metrics = metrics;
    this.#events = events;
  }

  /** The smallest `maxBatch` of the servers seen up (MAX_SAFE_INTEGER before any). */
  get maxBatch(): number {
    return this.#maxBatch;
  }

  startKeepAlive(): void {
    const o = this.#options;
    const every = Math.max(5, Math.floor(o.keepAliveMs / 2));
    this.#stopKeepAlive = startKeepAlive(o.time, every, () => this.#pingIdle());
  }

  /** No more probes or pings; a probe under way drops what it connected. */
  stop(): void {
    this.#closed = true;
    this.#stopKeepAlive?.();
  }

  /** Connects to `e` (one probe at a time). */
  probe(e: ServerEndpoint): Promise<void> {
    if (e.probe !== undefined || this.#closed) return e.probe ?? Promise.resolve();
    e.state = 'connecting';
    e.timer = undefined;
    const o = this.#options;
    const connect = (): Promise<ProtocolConnection> =>
      ProtocolConnection.connect(e.address, {
        connectTimeoutMs: o.connectTimeoutMs,
        requestTimeoutMs: o.requestTimeoutMs,
        time: o.time,
        ...(o.authToken === undefined ? {} : { authToken: o.authToken }),
      });
    e.probe = (async () => {
      const settled = await Promise.allSettled(
        Array.from({ length: o.connectionsPerServer }, connect),
      );
      const connections = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      const first = settled.find((s) => s.status === 'rejected');
      if (this.#closed) {
        for (const c of connections) c.destroy();
        return;
      }
      const welcome = connections[0]?.welcome;
      if (welcome === undefined) {
        const reason = (first as PromiseRejectedResult).reason as unknown;
        const error = VestaError.is(reason)
          ? reason
          : new VestaError('NO_SERVER_AVAILABLE', String(reason));
        if (error.code === 'UNAUTHORIZED' || error.code === 'HANDSHAKE_MISMATCH')
          this.#refuse(e, error);
        else this.#down(e, error);
        return;
      }
      const mismatch = this.#layout.check(e.name, welcome) ?? this.#twinCheck(e, welcome.machine);
      if (mismatch !== undefined) {
        for (const c of connections) c.destroy();
        this.#refuse(e, mismatch);
        return;
      }
      e.welcome = welcome;
      e.connections = connections;
      e.state = 'up';
      this.#maxBatch = Math.min(this.#maxBatch, welcome.maxBatch);
      for (const c of connections) this.#watch(e, c);
      o.logger.info({ server: e.name, machine: welcome.machine }, 'id server up');
      this.#events.emit('serverUp', { server: e.name, machine: welcome.machine });
    })().finally(() => {
      e.probe = undefined;
    });
    return e.probe;
  }

  /** Another server up with the same machine id: their ids would collide. */
  #twinCheck(e: ServerEndpoint, machine: number): VestaError | undefined {
    const twin = this.#endpoints.find(
      (o) => o !== e && o.state === 'up' && o.welcome?.machine === machine,
    );
    if (twin === undefined) return undefined;
    return new VestaError(
      'HANDSHAKE_MISMATCH',
      `${e.name} and ${twin.name} both issue under machine id ${machine}: their ids would collide`,
      { details: { server: e.name, machine } },
    );
  }

  #watch(e: ServerEndpoint, c: ProtocolConnection): void {
    const down = (error: VestaError): void => {
      if (e.connections.includes(c)) this.markDown(e, error);
    };
    c.on('close', (error) =>
      down(error ?? new VestaError('NO_SERVER_AVAILABLE', `${e.name} closed the connection`)),
    );
    c.on('goaway', () => down(new VestaError('SERVICE_CLOSED', `${e.name} is shutting down`)));
    c.on('timeout', () => down(new VestaError('TIMEOUT', `${e.name} did not answer in time`)));
  }

  markDown(e: ServerEndpoint, error: VestaError): void {
    if (e.state !== 'up') return;
    const connections = e.connections;
    e.connections = [];
    e.state = 'down';
    e.failures++;
    this.#metrics.serverDown.inc({ server: e.name });
    this.#options.logger.warn(
      { server: e.name, code: error.code, err: error.message },
      'id server down',
    );
    for (const c of connections) {
      if (error.code === 'SERVICE_CLOSED') void c.close(this.#options.requestTimeoutMs);
      else c.destroy(error);
    }
    this.#events.emit('serverDown', { server: e.name, error });
    this.#schedule(e);
  }

  #down(e: ServerEndpoint, error: VestaError): void {
    e.state = 'down';
    e.failures++;
    if (e.failures === 1)
      this.#options.logger.warn(
        { server: e.name, code: error.code, err: error.message },
        'id server unreachable',
      );
    this.#schedule(e);
  }

  #refuse(e: ServerEndpoint, error: VestaError): void {
    e.state = 'refused';
    e.failures++;
    this.#options.logger.error(
      { server: e.name, code: error.code, err: error.message },
      'id server refused',
    );
    this.#events.emit('serverRefused', { server: e.name, error });
    this.#schedule(e, this.#options.maxProbeIntervalMs);
  }

  #schedule(e: ServerEndpoint, delayMs?: number): void {
    if (this.#closed || e.timer !== undefined) return;
    const o = this.#options;
    const wait =
      delayMs === undefined
        ? probeBackoffMs(e.failures, o.probeIntervalMs, o.maxProbeIntervalMs)
        : probeBackoffMs(1, delayMs, delayMs);
    e.timer = o.time
      .setTimer(() => {
        e.timer = undefined;
        void this.probe(e);
      }, wait)
      .unref();
  }

  #pingIdle(): void {
    const idleSince = this.#options.time.monotonic() - this.#options.keepAliveMs;
    for (const e of this.#endpoints) {
      if (e.state !== 'up') continue;
      for (const c of e.connections) {
        if (c.inFlight === 0 && c.lastUsedAt < idleSince) {
          c.ping().catch((error: unknown) => {
            if (VestaError.is(error) && e.connections.includes(c)) this.markDown(e, error);
          });
        }
      }
    }
  }
}
