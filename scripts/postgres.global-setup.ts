import type { TestProject } from 'vitest/node';
import { startPostgresServer } from '@vesta/testkit';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `postgres://vesta@127.0.0.1:<port>/vesta` of the PostgreSQL the whole test run shares. */
    postgresUrl: string;
  }
}

/**
 * Vitest global setup: one throwaway PostgreSQL cluster for the whole run (specs that kill or
 * wipe it start their own), its URL provided as `postgresUrl`, stopped and deleted at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgresServer();
  project.provide('postgresUrl', server.url);
  return () => server.dispose();
}
