import { silentLogger } from '@vesta/core';
import { afterEach } from 'vitest';
import { createIdClient, type IdClient } from '../client/IdClient.js';
import type { IdServerOptions } from '../server/IdServerOptions.js';
import { startIdServer, type IdServerHandle } from '../server/startIdServer.js';

/**
 * For specs: servers and clients that close after each test (in reverse order, with whatever
 * else the test pushed on `cleanup`). Servers listen on a free port with the mark in memory.
 */
export function useServerFixtures(): {
  server(machineId: number, extra?: Partial<IdServerOptions>): Promise<IdServerHandle>;
  client(options: Parameters<typeof createIdClient>[0]): Promise<IdClient>;
  cleanup: (() => Promise<unknown>)[];
} {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });
  return {
    cleanup,
    async server(machineId, extra = {}) {
      const s = await startIdServer({
        port: 0,
        stateDir: false,
        logger: silentLogger,
        machineId,
        ...extra,
      });
      cleanup.push(() => s.close());
      return s;
    },
    async client(options) {
      const c = await createIdClient({ logger: silentLogger, ...options });
      cleanup.push(() => c.close());
      return c;
    },
  };
}
