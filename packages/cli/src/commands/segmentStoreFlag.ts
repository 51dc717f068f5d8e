import { VestaError, type Logger, type SegmentServiceObserver } from '@vesta/core';
import { importOptional } from '@vesta/core/kit';
import type * as SegmentModule from '@vesta/segment';
import type { SchemaFlag } from './addSchemaFlags.js';

/** @vesta/segment, an optional package: PACKAGE_MISSING when it is not installed. */
function loadSegment(): Promise<typeof SegmentModule> {
  return importOptional('@vesta/segment', () => import('@vesta/segment'), '--segment-store needs');
}

/** The segment store of a `postgres://` or `redis://` URL (INVALID_OPTIONS for another). */
export async function segmentStoreOf(
  url: string,
  flag = '--segment-store',
): Promise<SegmentModule.SegmentStore> {
  const scheme = /^([a-z]+):\/\//.exec(url)?.[1];
  const { PostgresSegmentStore, RedisSegmentStore } = await loadSegment();
  if (scheme === 'postgres' || scheme === 'postgresql') return new PostgresSegmentStore({ url });
  if (scheme === 'redis' || scheme === 'rediss') return new RedisSegmentStore({ url });
  throw new VestaError(
    'INVALID_OPTIONS',
    `${flag} must be a postgres:// or redis:// URL, got ${JSON.stringify(url.slice(0, 40))}`,
  );
}

/** The segments of `--segment-store`; `close()` hands them back (else warns), closes the store. */
export async function segmentsOfFlag(
  url: string,
  observer?: SegmentServiceObserver,
  logger?: Logger,
) {
  const store = await segmentStoreOf(url);
  const { createSegmentService } = await loadSegment();
  const service = createSegmentService({ store, ...(observer === undefined ? {} : { observer }) });
  const handBack = async (): Promise<void> => {
    try {
      await service.close();
    } catch (error) {
      const ranges = VestaError.is(error, 'COORDINATOR_UNAVAILABLE')
        ? error.details?.['ranges']
        : undefined;
      if (logger === undefined || ranges === undefined || !VestaError.is(error)) throw error;
      logger.warn({ ranges, err: error.cause }, error.message);
    }
  };
  const close = async (): Promise<void> => {
    try {
      await handBack();
    } finally {
      await store.close();
    }
  };
  return { service, close };
}

/** The `--segment-store <url>` flag of a server that serves `what`. */
export function segmentStoreFlag(what: string): SchemaFlag {
  return {
    help: `segment mode (@vesta/segment): serve ${what} from a postgres:// or redis:// store (keys are created in the store: vesta segment create)`,
    arg: 'url',
  };
}
