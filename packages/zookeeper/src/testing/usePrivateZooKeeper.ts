import { afterAll, beforeAll } from 'vitest';
import { startZooKeeperServer, type ZooKeeperServer } from '@vesta/testkit';

/**
 * A ZooKeeper of the calling spec file's own, started before its tests and disposed after them,
 * for specs that kill, wipe or restart it (the shared one stays as it is). Returns a getter.
 */
export function usePrivateZooKeeper(): () => ZooKeeperServer {
  let server: ZooKeeperServer | undefined;
  beforeAll(async () => {
    server = await startZooKeeperServer();
  });
  afterAll(async () => {
    await server?.dispose();
  });
  return () => {
    if (server === undefined) throw new Error('the private ZooKeeper is not started');
    return server;
  };
}
