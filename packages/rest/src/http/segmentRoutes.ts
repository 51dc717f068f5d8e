import { pathKey } from './pathKey.js';
import { HEAD_OK, ok, TEXT_HEADERS, type RouteTable } from './RestReply.js';
import type { RestContext } from './RestContext.js';
import { checkSegmentKey, segmentNumbersOf, type SegmentNumbers } from '@vesta/core/kit';

const SEGMENT_PREFIX = '/segment/';
const LEAF_SEGMENT_PREFIX = '/api/segment/get/';

/**
 * The routes of segment mode: `/segment/{key}` (`{"id":"..."}`) and Meituan Leaf's
 * `/api/segment/get/{key}` (the number alone, as text, as Leaf answers). The key is
 * percent-decoded and checked by the segment stores' own rule (`checkSegmentKey`: 1 to 200
 * code points without control characters, lone surrogates or noncharacters, else
 * INVALID_ARGUMENT). Without a segment service, every key is SEGMENT_KEY_UNKNOWN.
 */
export function segmentRoutes(
  ctx: RestContext,
): RouteTable<'/segment/{key}' | '/api/segment/get/{key}'> {
  const { segments, metrics } = ctx;
  const numbers = (key: string): SegmentNumbers => segmentNumbersOf(segments, key);
  return {
    '/segment/{key}': (_query, head, url) => {
      const key = checkSegmentKey(pathKey(url, SEGMENT_PREFIX));
      const service = numbers(key);
      if (head) return HEAD_OK;
      return service.segment(key).then((n) => {
        metrics.countIdsIssued(1);
        return ok(`{"id":"${n}"}`, 1);
      });
    },
    '/api/segment/get/{key}': (_query, head, url) => {
      const key = checkSegmentKey(pathKey(url, LEAF_SEGMENT_PREFIX));
      const service = numbers(key);
      if (head) return { status: 200, body: '', headers: TEXT_HEADERS };
      return service.segment(key).then((n) => {
        metrics.countIdsIssued(1);
        return { status: 200, body: String(n), headers: TEXT_HEADERS, ids: 1 };
      });
    },
  };
}
