import type { TestProject } from 'vitest/node';
import { startZooKeeperServer } from '@vesta/testkit';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `127.0.0.1:<port>` of the ZooKeeper the whole test run shares. */
    zookeeperConnect: string;
  }
}

/**
 * Vitest global setup: one standalone ZooKeeper for the whole run (tests that stop ZooKeeper
 * start their own), its connect string provided as `zookeeperConnect`, stopped by its process
 * id when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startZooKeeperServer();
  project.provide('zookeeperConnect', server.connect);
  return () => server.dispose();
}
