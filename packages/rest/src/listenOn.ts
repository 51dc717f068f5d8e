import type { AddressInfo, Server } from 'node:net';
import { VestaError } from '@vesta/core';

/** A function that makes `server` listen on `host:port`; it rejects with LISTEN_FAILED. */
export function listenOn(host: string, port: number): (server: Server) => Promise<AddressInfo> {
  return (server) =>
    new Promise<AddressInfo>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        const why = `cannot listen on ${host}:${port}: ${error.code ?? error.message}`;
        reject(new VestaError('LISTEN_FAILED', why, { cause: error, details: { host, port } }));
      };
      server.once('error', onError);
      server.listen({ host, port }, () => {
        server.off('error', onError);
        resolve(server.address() as AddressInfo);
      });
    });
}
