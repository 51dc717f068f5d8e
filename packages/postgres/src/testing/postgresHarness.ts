import { randomUUID } from 'node:crypto';
import { startPostgresServer } from '@vesta/testkit';
import {
  conformanceProfiles,
  defineMachineIdProviderHarness,
  type MachineIdProviderHarness,
} from '@vesta/testkit/conformance';
import { PostgresAdmin } from '../PostgresAdmin.js';
import { PostgresMachineIdProvider } from '../PostgresMachineIdProvider.js';
import { resolvePostgresMachineIdOptions } from '../PostgresMachineIdOptions.js';

/** Generous connection deadlines: the suite must hold on a loaded machine. */
const PROFILES = conformanceProfiles({ connectTimeoutMs: 5000, operationTimeoutMs: 2000 });

const url = (address: string): string => `postgres://vesta@${address}/vesta`;

/** The conformance harness of {@link PostgresMachineIdProvider}: a namespace is a schema. */
export const postgresHarness: MachineIdProviderHarness = defineMachineIdProviderHarness({
  name: 'PostgreSQL',
  startCoordinator: () => startPostgresServer(),
  namespace: () => `ns_${randomUUID().slice(0, 8)}`,
  profiles: PROFILES,
  defaultEraWaitMs: (timings) =>
    resolvePostgresMachineIdOptions({ url: 'postgres://x@127.0.0.1:1/x', ...timings }).eraWaitMs,
  createProvider: (address, schema, settings) =>
    new PostgresMachineIdProvider({ url: url(address), schema, ...settings }),
  admin: (address, namespace) => new PostgresAdmin({ url: url(address), schema: namespace }),
});
