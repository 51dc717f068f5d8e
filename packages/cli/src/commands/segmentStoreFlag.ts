import { VestaError } from '@vesta/core';
import type * as SegmentModule from '@vesta/segment';

/** What `vesta rest --segment-store` runs: the numbers, and how to close them and their store. */
export interface CliSegments {
  readonly service: SegmentModule.SegmentService;
  /** Hands the buffered numbers back (the next start takes them first), then closes the store. */
  close(): Promise<void>;
}

/** @vesta/segment, an optional package: PACKAGE_MISSING when it is not installed. */
function loadSegment(): Promise<typeof SegmentModule> {
  return import('@vesta/segment').catch((error: unknown) => {
    if ((error as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new VestaError(
      'PACKAGE_MISSING',
      '--segment-store needs the package @vesta/segment, which is not installed: npm install @vesta/segment',
      { cause: error, details: { package: '@vesta/segment' } },
    );
  });
}

/**
 * The segment service of `--segment-store <url>`: `postgres://` (PostgreSQL, `pg`) or
 * `redis://` (Redis, `ioredis`); INVALID_OPTIONS for another scheme. Nothing connects before
 * the first number is asked for.
 */
export async function segmentsOfFlag(url: string): Promise<CliSegments> {
  const scheme = /^([a-z]+):\/\//.exec(url)?.[1];
  const { createSegmentService, PostgresSegmentStore, RedisSegmentStore } = await loadSegment();
  let store: SegmentModule.SegmentStore;
  if (scheme === 'postgres' || scheme === 'postgresql') store = new PostgresSegmentStore({ url });
  else if (scheme === 'redis' || scheme === 'rediss') store = new RedisSegmentStore({ url });
  else {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--segment-store must be a postgres:// or redis:// URL, got ${JSON.stringify(url.slice(0, 40))}`,
    );
  }
  const service = createSegmentService({ store });
  return {
    service,
    close: async () => {
      try {
        await service.close();
      } finally {
        await store.close();
      }
    },
  };
}
