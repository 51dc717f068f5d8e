import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A package registry that holds nothing, on 127.0.0.1. */
export interface EmptyRegistry {
  /** e.g. `http://127.0.0.1:41234/` */
  readonly url: string;
  /** The paths npm asked for, in order. */
  readonly requested: readonly string[];
  close(): Promise<void>;
}

/**
 * Starts a registry that answers every request 404 at once. Set as a scope's registry
 * (`--@vesta:registry=<url>`), it makes npm meet that scope's dependencies from the tarballs
 * it is given or fail, never from whatever the public registry holds under the name; a refused
 * connection instead would cost npm's retries (over a minute for each package).
 */
export async function startEmptyRegistry(): Promise<EmptyRegistry> {
  const requested: string[] = [];
  const server = createServer((request, response) => {
    requested.push(request.url ?? '');
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end('{"error":"Not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requested,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
