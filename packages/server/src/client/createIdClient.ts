import { IdClient } from './IdClient.js';
import { resolveIdClientOptions, type IdClientOptions } from './IdClientOptions.js';

/**
 * Connects to central id servers, resolving once each was tried (one must answer, unless
 * `fallback` or `type` and `epoch` are given). INVALID_OPTIONS, NO_SERVER_AVAILABLE.
 *
 * @example
 * const ids = await createIdClient({ servers: ['127.0.0.1:7070', '127.0.0.1:7071'], fallback: { machineId: 17 } });
 * const id = await ids.genId();
 * ids.expId(id); // decoded locally, with the layout learned in the handshake
 * await ids.close();
 */
export async function createIdClient(options: IdClientOptions): Promise<IdClient> {
  const client = new IdClient(resolveIdClientOptions(options));
  await client.start();
  return client;
}
