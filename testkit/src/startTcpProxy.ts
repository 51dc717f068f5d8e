import { connect as tcpConnect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 for tests. It forwards new connections to `target`; while black
 * holing, it accepts them and never forwards nor answers them (like a server that takes the TCP
 * connection but never answers the handshake), and black-holed connections stay open until
 * {@link TcpProxy.close}; while refusing, it closes them at once (like a server that is down).
 */
export interface TcpProxy {
  /** `127.0.0.1:<port>` of the proxy. */
  readonly address: string;
  /** How many connections were accepted into the black hole so far. */
  readonly blackHoled: number;
  /** How many connections were forwarded so far. */
  readonly forwarded: number;
  /** Destroys every forwarded connection, then black-holes new ones. */
  blackHole(): void;
  /** Destroys every forwarded connection, then closes new ones as soon as they are accepted. */
  refuse(): void;
  /**
   * Keeps forwarding requests on the connections open and new ones, but drops every byte of the
   * answers: a server that took and applied a request whose reply is lost. {@link forward} then
   * destroys the connections that lost bytes (their streams are cut mid-answer).
   */
  dropReplies(): void;
  /** Bytes of answers dropped so far (see {@link dropReplies}). */
  readonly repliesDropped: number;
  /** Forwards new connections again; black-holed ones stay black-holed. */
  forward(): void;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

/** Starts a {@link TcpProxy} to `target` (`host:port`) on a free port. */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const colon = target.lastIndexOf(':');
  const host = target.slice(0, colon);
  const port = Number(target.slice(colon + 1));
  const open = new Set<Socket>();
  const forwardedPairs = new Set<[Socket, Socket]>();
  let mode: 'forward' | 'blackHole' | 'refuse' | 'dropReplies' = 'forward';
  let repliesDropped = 0;
  // Connections that lost bytes of an answer: cut when forwarding resumes.
  const cutMidAnswer = new Set<[Socket, Socket]>();
  let blackHoled = 0;
  let forwarded = 0;

  const track = (socket: Socket): void => {
    open.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => open.delete(socket));
  };

  const server: Server = createServer((client) => {
    track(client);
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    if (mode === 'blackHole') {
      blackHoled++;
      client.resume(); // read and drop whatever comes, never answer
      return;
    }
    forwarded++;
    const upstream = tcpConnect({ host, port });
    track(upstream);
    const pair: [Socket, Socket] = [client, upstream];
    forwardedPairs.add(pair);
    const end = (): void => {
      forwardedPairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.once('close', end);
    upstream.once('close', end);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (mode === 'dropReplies') {
        repliesDropped += chunk.length;
        cutMidAnswer.add(pair);
        return;
      }
      if (!client.write(chunk)) {
        upstream.pause();
        client.once('drain', () => upstream.resume());
      }
    });
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const dropForwarded = (): void => {
    for (const [client, upstream] of [...forwardedPairs]) {
      client.destroy();
      upstream.destroy();
    }
  };
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the proxy has no port');

  return {
    address: `127.0.0.1:${address.port}`,
    get blackHoled() {
      return blackHoled;
    },
    get forwarded() {
      return forwarded;
    },
    get repliesDropped() {
      return repliesDropped;
    },
    dropReplies() {
      mode = 'dropReplies';
    },
    blackHole() {
      mode = 'blackHole';
      dropForwarded();
    },
    refuse() {
      mode = 'refuse';
      dropForwarded();
    },
    forward() {
      mode = 'forward';
      for (const [client, upstream] of cutMidAnswer) {
        client.destroy();
        upstream.destroy();
      }
      cutMidAnswer.clear();
    },
    close() {
      for (const socket of [...open]) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
