import type { ServerAddress } from '../protocol/parseServerAddress.js';
import { ServerEndpoint } from './ServerEndpoint.js';

/** The client's servers: round-robin over those up, skipping those a call already tried. */
export class EndpointPool {
  readonly endpoints: readonly ServerEndpoint[];
  #next = 0;

  constructor(addresses: readonly ServerAddress[]) {
    this.endpoints = addresses.map((address) => new ServerEndpoint(address));
  }

  /** The next usable server not in `tried`, round-robin; undefined when there is none. */
  pick(tried: ReadonlySet<ServerEndpoint> | undefined): ServerEndpoint | undefined {
    const n = this.endpoints.length;
    for (let i = 0; i < n; i++) {
      const e = this.endpoints[(this.#next + i) % n] as ServerEndpoint;
      if (e.usable && (tried === undefined || !tried.has(e))) {
        this.#next = (this.#next + i + 1) % n;
        return e;
      }
    }
    return undefined;
  }

  /** The probes under way. */
  probes(): Promise<void>[] {
    return this.endpoints.flatMap((e) => (e.probe === undefined ? [] : [e.probe]));
  }

  /** Whether any server is up. */
  anyUp(): boolean {
    return this.endpoints.some((e) => e.state === 'up');
  }

  /** Another server up under `machine`: its ids and those of `endpoint` would collide. */
  twinOf(endpoint: ServerEndpoint, machine: number): ServerEndpoint | undefined {
    return this.endpoints.find(
      (o) => o !== endpoint && o.state === 'up' && o.welcome?.machine === machine,
    );
  }

  /** `host:port, host:port` of every server. */
  names(): string {
    return this.endpoints.map((e) => e.name).join(', ');
  }
}
