import { IdClient } from './IdClient.js';
import { resolveIdClientOptions, type IdClientOptions } from './IdClientOptions.js';

/**
 * Connects to a set of central id servers and resolves once every server has been tried
 * (at least one must answer, unless `fallback` is given or `type` and `epoch` are).
 * Throws INVALID_OPTIONS on bad options and NO_SERVER_AVAILABLE when it cannot start.
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
