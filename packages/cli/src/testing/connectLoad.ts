import { ProtocolConnection } from '@vesta/server/protocol';
import type { LoadConnection } from './killUnderLoad.js';
import { restIssue } from './restIssue.js';
import { tcpIssue } from './tcpIssue.js';

/** Batches of 100 ids, every other request. */
const BATCH = 100;

/**
 * Test helper: load clients talking straight to one server of `command` on 127.0.0.1:`port`,
 * so that each answer is the server's own (no client failover or retry): plain HTTP requests
 * for `rest`, one raw protocol connection for `server`.
 */
export async function connectLoad(
  command: 'rest' | 'server',
  port: number,
): Promise<LoadConnection> {
  if (command === 'rest') return restIssue(`http://127.0.0.1:${port}`, BATCH);
  const connection = await ProtocolConnection.connect(
    { host: '127.0.0.1', port },
    { requestTimeoutMs: 10_000, connectTimeoutMs: 10_000 },
  );
  return { issue: tcpIssue(connection, BATCH), close: () => connection.close() };
}
