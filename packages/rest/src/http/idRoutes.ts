import { formatUuid, type UuidForm } from '@vesta/core';
import { segmentNumbersOf } from '@vesta/core/kit';
import { HEAD_OK, ok, TEXT_HEADERS, type RestReply, type RouteTable } from './RestReply.js';
import type { RestContext } from './RestContext.js';

const TEXT_HEAD: RestReply = { status: 200, body: '', headers: TEXT_HEADERS };

/** How UUIDs are written in `form`; undefined for the canonical form. */
function uuidWriter(form: UuidForm): ((uuid: string) => string) | undefined {
  return form === 'canonical' ? undefined : (uuid) => formatUuid(uuid, form);
}

/** The routes that issue: ids, UUIDs, segment numbers, and Leaf's get paths. */
export function idRoutes(
  ctx: RestContext,
): RouteTable<
  | '/genid'
  | '/genids'
  | '/genuuid'
  | '/genuuids'
  | '/api/snowflake/get/{key}'
  | '/segment/{key}'
  | '/api/segment/get/{key}'
> {
  const { service, metrics, batches, segments } = ctx;

  const one = (id: bigint | string): RestReply => {
    metrics.countIdsIssued(1);
    return ok(`{"id":"${id}"}`, 1);
  };
  const text = (id: bigint): RestReply => {
    metrics.countIdsIssued(1);
    return { status: 200, body: String(id), headers: TEXT_HEADERS, ids: 1 };
  };

  // A batch waits its connection's turn (FairIdShare); single values need none: batches never
  // empty a time unit.
  const batch = async <T extends bigint | string>(
    count: number,
    flow: object,
    issue: (count: number) => Promise<T[]>,
    write: ((value: T) => string) | undefined,
  ): Promise<RestReply> => {
    const turn = batches.admit(flow, count);
    if (turn !== undefined) await turn;
    const values = await issue(count);
    metrics.countIdsIssued(count);
    return ok(
      `{"ids":["${(write === undefined ? values : values.map(write)).join('","')}"]}`,
      count,
    );
  };

  return {
    '/genid': ({ key, format, scrambled }, head) => {
      const write = ctx.idWriter(format, scrambled);
      if (head) return HEAD_OK;
      return (key ?? service).genId().then(write === undefined ? one : (id) => one(write(id)));
    },
    '/genids': ({ count, key, format, scrambled }, head, flow) => {
      const write = ctx.idWriter(format, scrambled);
      if (head) return HEAD_OK;
      const generator = key ?? service;
      return batch(count, flow, (n) => generator.genIds(n), write);
    },
    '/genuuid': ({ format }, head) => {
      const write = uuidWriter(format);
      if (head) return HEAD_OK;
      return service.genUuid().then(write === undefined ? one : (uuid) => one(write(uuid)));
    },
    '/genuuids': ({ count, format }, head, flow) => {
      if (head) return HEAD_OK;
      return batch(count, flow, (n) => service.genUuids(n), uuidWriter(format));
    },
    '/api/snowflake/get/{key}': ({ key }, head) =>
      head ? TEXT_HEAD : (key ?? service).genId().then(text),
    '/segment/{key}': ({ key }, head) => {
      const numbers = segmentNumbersOf(segments, key);
      if (head) return HEAD_OK;
      return numbers.segment(key).then(one);
    },
    '/api/segment/get/{key}': ({ key }, head) => {
      const numbers = segmentNumbersOf(segments, key);
      return head ? TEXT_HEAD : numbers.segment(key).then(text);
    },
  };
}
