import type { TimerHandle } from '@vesta/core';
import { formatServerAddress, type ServerAddress } from '../protocol/parseServerAddress.js';
import type { Welcome } from '../protocol/WelcomeMessage.js';
import type { IdClientServerInfo } from './IdClientInfo.js';
import type { ProtocolConnection } from './ProtocolConnection.js';

/** One id server as the client sees it: its state, its connections, its handshake. */
export class ServerEndpoint {
  readonly address: ServerAddress;
  readonly name: string;
  state: IdClientServerInfo['state'] = 'down';
  connections: ProtocolConnection[] = [];
  welcome: Welcome | undefined;
  /** Failures since it last answered: the probe backoff grows with them. */
  failures = 0;
  probe: Promise<void> | undefined;
  timer: TimerHandle | undefined;

  constructor(address: ServerAddress) {
    this.address = address;
    this.name = formatServerAddress(address);
  }

  get usable(): boolean {
    return this.state === 'up' && this.connections.length > 0;
  }

  /** The connection with the fewest requests in flight. */
  leastLoaded(): ProtocolConnection {
    let best = this.connections[0] as ProtocolConnection;
    for (let i = 1; i < this.connections.length; i++) {
      const c = this.connections[i] as ProtocolConnection;
      if (c.inFlight < best.inFlight) best = c;
    }
    return best;
  }

  info(): IdClientServerInfo {
    return {
      server: this.name,
      state: this.state,
      machine: this.welcome?.machine,
      inFlight: this.connections.reduce((sum, c) => sum + c.inFlight, 0),
    };
  }
}
