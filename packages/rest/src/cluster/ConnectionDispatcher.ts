import type { Worker } from 'node:cluster';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Logger } from '@vesta/core';
import { listenOn } from '../listenOn.js';
import type { ClusterMessage } from './clusterMessages.js';

/** Connections kept while no worker serves (every one restarting), oldest first; beyond, refused. */
const MAX_WAITING = 1024;

export interface DispatchTarget {
  readonly worker: Worker;
  /** Connections sent to the worker and not yet taken, by number. */
  readonly handedOff: Map<number, Socket>;
}

/** Hands each connection to the next serving worker, keeping a copy until taken, so a death does not strand it. */
export class ConnectionDispatcher {
  readonly #serving: DispatchTarget[] = [];
  readonly #waiting: Socket[] = [];
  #next = 0;
  #counter = 0;
  #closed = false;

  private constructor(
    private readonly server: Server,
    private readonly logger: Logger,
  ) {}

  /** Listens on `host:port`; rejects with LISTEN_FAILED. */
  static async listen(host: string, port: number, logger: Logger): Promise<ConnectionDispatcher> {
    const server = createServer({ pauseOnConnect: true });
    const dispatcher = new ConnectionDispatcher(server, logger);
    server.on('connection', (socket: Socket) => dispatcher.#dispatch(socket));
    await listenOn(host, port)(server);
    server.on('error', (error) => logger.error({ err: error }, 'listener error'));
    return dispatcher;
  }

  get address(): AddressInfo {
    return this.server.address() as AddressInfo;
  }

  /** Starts handing connections to `target`, first those waiting. */
  serve(target: DispatchTarget): void {
    if (this.#closed) return;
    this.#serving.push(target);
    for (const socket of this.#waiting.splice(0)) this.#dispatch(socket);
  }

  withdraw(target: DispatchTarget): void {
    const at = this.#serving.indexOf(target);
    if (at >= 0) this.#serving.splice(at, 1);
  }

  /** The worker took connection `id`: the primary's copy closes. */
  took(target: DispatchTarget, id: number): void {
    target.handedOff.get(id)?.destroy();
    target.handedOff.delete(id);
  }

  /** The worker died: the connections it had not taken close. */
  died(target: DispatchTarget): void {
    this.withdraw(target);
    for (const socket of target.handedOff.values()) socket.destroy();
    target.handedOff.clear();
  }

  /** Stops listening and closes the connections no worker took. */
  close(): void {
    this.#closed = true;
    this.server.close();
    for (const socket of this.#waiting.splice(0)) socket.destroy();
  }

  #dispatch(socket: Socket): void {
    if (this.#closed) {
      socket.destroy();
      return;
    }
    const target = this.#pick();
    if (target === undefined) {
      if (this.#waiting.length >= MAX_WAITING) socket.destroy();
      else this.#waiting.push(socket);
      return;
    }
    const id = this.#counter++;
    target.handedOff.set(id, socket);
    const message: ClusterMessage = { vesta: 'connection', id };
    const failed = (error: Error): void => {
      // The worker is dying: another takes the connection.
      this.logger.info({ err: error.message }, 'a worker left before a connection reached it');
      if (target.handedOff.delete(id)) {
        this.withdraw(target);
        this.#dispatch(socket);
      }
    };
    try {
      target.worker.send(message, socket, { keepOpen: true }, (error: Error | null) => {
        if (error !== null) failed(error);
      });
    } catch (error) {
      failed(error as Error);
    }
  }

  #pick(): DispatchTarget | undefined {
    while (this.#serving.length > 0) {
      const target = this.#serving[this.#next++ % this.#serving.length] as DispatchTarget;
      if (target.worker.isConnected()) return target;
      this.withdraw(target);
    }
    return undefined;
  }
}
