import { startPostgresServer } from '@vesta/testkit';
import { inject } from 'vitest';
import { describeSegmentStore } from '../testing/describeSegmentStore.js';
import { PostgresSegmentStore } from './PostgresSegmentStore.js';

const url = inject('postgresUrl');

describeSegmentStore({
  name: 'PostgreSQL',
  shared: (schema) => new PostgresSegmentStore({ url, schema }),
  own: async () => {
    const server = await startPostgresServer();
    return {
      server,
      store: (schema) =>
        new PostgresSegmentStore({
          url: server.url,
          schema,
          connectTimeoutMs: 2000,
          operationTimeoutMs: 2000,
        }),
    };
  },
});
