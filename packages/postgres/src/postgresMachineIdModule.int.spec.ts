import { randomUUID } from 'node:crypto';
import { silentLogger } from '@vesta/core';
import { describeMachineIdModule } from '@vesta/testkit/conformance';
import { inject } from 'vitest';
import { PostgresAdmin } from './postgresCoordinator.js';
import { postgresMachineIdModule } from './postgresCoordinator.js';
import { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';

const url = inject('postgresUrl');

describeMachineIdModule({
  name: 'PostgreSQL',
  namespace: () => `module_${randomUUID().slice(0, 8)}`,
  module: (schema, key) =>
    postgresMachineIdModule({ url, schema, logger: silentLogger, ...(key && { key }) }),
  eraOpener: (schema) =>
    new PostgresMachineIdProvider({ url, schema, eraWaitMs: 0, logger: silentLogger }),
  list: (schema) => new PostgresAdmin({ url, schema }).list(),
});
