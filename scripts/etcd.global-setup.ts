import type { TestProject } from 'vitest/node';
import { startEtcdServer } from '@vesta/testkit';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `127.0.0.1:<port>` of the etcd the whole test run shares. */
    etcdEndpoints: string;
  }
}

/**
 * Vitest global setup: one single-member etcd for the whole run (specs that kill or wipe it
 * start their own), its client address provided as `etcdEndpoints`, stopped and deleted at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startEtcdServer();
  project.provide('etcdEndpoints', server.address);
  return () => server.dispose();
}
