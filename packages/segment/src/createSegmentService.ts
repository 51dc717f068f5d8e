import { systemTimeSource, VestaError } from '@vesta/core';
import { checkBatchCount, checkSegmentKey } from '@vesta/core/kit';
import { SegmentBuffer } from './engine/SegmentBuffer.js';
import type { SegmentService } from './SegmentService.js';
import { segmentServiceOptions, type SegmentServiceOptions } from './SegmentServiceOptions.js';

/**
 * A segment service over a store: one buffer per key, made on its first call. INVALID_OPTIONS;
 * SEGMENT_KEY_UNKNOWN for a key the store does not have.
 *
 * @example
 * const store = new PostgresSegmentStore({ url: 'postgres://vesta@db:5432/vesta' });
 * await store.createKey('order', { step: 1000 });
 * const numbers = createSegmentService({ store });
 * const n = await numbers.segment('order'); // 0n, then 1n, ...
 */
export function createSegmentService(options: SegmentServiceOptions): SegmentService {
  const o = segmentServiceOptions.resolve(options);
  const settings = { ...o, time: o.time ?? systemTimeSource };
  const buffers = new Map<string, SegmentBuffer>();
  let closing: Promise<void> | undefined;

  const checkOpen = (): void => {
    if (closing !== undefined) {
      throw new VestaError('SERVICE_CLOSED', 'the segment service was closed');
    }
  };

  const bufferOf = (key: string): SegmentBuffer => {
    checkOpen();
    let buffer = buffers.get(key);
    if (buffer === undefined) {
      // Keys that do not exist must not grow the service without bound (see SegmentBuffer.disposable).
      const created = new SegmentBuffer(checkSegmentKey(key), settings, () => {
        if (buffers.get(key) === created) buffers.delete(key);
      });
      buffer = created;
      buffers.set(key, buffer);
    }
    return buffer;
  };

  const take = (key: string, n: number): Promise<bigint[]> => bufferOf(key).take(n);

  return Object.freeze({
    async segment(key: string): Promise<bigint> {
      const [n] = await take(key, 1);
      return n as bigint;
    },
    segmentSync(key: string): bigint | undefined {
      checkOpen();
      return buffers.get(key)?.takeSync();
    },
    async segments(key: string, n: number): Promise<bigint[]> {
      checkBatchCount(n, o.maxBatch);
      return take(key, n);
    },
    close(): Promise<void> {
      closing ??= (async () => {
        const closed = await Promise.all(
          [...buffers.values()].map(async (b) => ({ key: b.key, ...(await b.close()) })),
        );
        const ranges = closed.flatMap(({ key, unconfirmed }) =>
          unconfirmed.map((r) => ({ key, start: String(r.start), end: String(r.end) })),
        );
        if (ranges.length === 0) return;
        // A hand-back that timed out may still reach the store: either way is safe, say why.
        throw new VestaError(
          'COORDINATOR_UNAVAILABLE',
          `the segment store did not confirm taking back ${ranges
            .map((r) => `[${r.start}, ${r.end}) of ${JSON.stringify(r.key)}`)
            .join(', ')}: this service serves none of them; the store may still take them back ` +
            'when the request reaches it (a later service then serves them, once), else they are skipped; never served twice',
          { cause: closed.find((c) => c.cause !== undefined)?.cause, details: { ranges } },
        );
      })();
      return closing;
    },
  });
}
