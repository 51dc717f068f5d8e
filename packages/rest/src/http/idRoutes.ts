import { formatUuid } from '@vesta/core';
import { checkBatchCount, parseUuidForm } from '@vesta/core/kit';
import { leafKey } from './leafKey.js';
import { pathKey } from './pathKey.js';
import type { QueryParams } from './QueryParams.js';
import { HEAD_OK, ok, TEXT_HEADERS, type RestReply, type RouteTable } from './RestReply.js';
import type { RestContext } from './RestContext.js';

const LEAF_GET_PREFIX = '/api/snowflake/get/';

/** How the UUIDs of a reply are written (the query's `format`), checked before any is issued. */
function uuidWriter(query: QueryParams): ((uuid: string) => string) | undefined {
  const raw = query.optional('format');
  const form = raw === undefined ? 'canonical' : parseUuidForm(raw, 'format');
  return form === 'canonical' ? undefined : (uuid) => formatUuid(uuid, form);
}

/** The routes that issue ids: `/genid`, `/genids`, `/genuuid`, `/genuuids` and Leaf's get. */
export function idRoutes(
  ctx: RestContext,
): RouteTable<'/genid' | '/genids' | '/genuuid' | '/genuuids' | '/api/snowflake/get/{key}'> {
  const { service, generators, metrics, maxBatch, batches } = ctx;

  /** The reply of /genid (and /genuuid): the id as text (decimal, or in the asked form). */
  const genIdReply = (id: bigint | string): RestReply => {
    metrics.countIdsIssued(1);
    return ok(`{"id":"${id}"}`, 1);
  };

  /**
   * The reply of a batch (`/genids`, `/genuuids`): it waits its connection's turn for the
   * layout's ids (see FairIdShare; UUIDs take the same claims), then `count` values, written by
   * `write` when given. Single values need no turn: the batches never empty a time unit.
   */
  const batchReply = async <T extends bigint | string>(
    count: number,
    flow: Parameters<typeof batches.admit>[0],
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
    '/genid': (query, head) => {
      const generator = ctx.generatorOf(query);
      const write = ctx.idWriter(query);
      if (head) return HEAD_OK;
      return generator
        .genId()
        .then(write === undefined ? genIdReply : (id) => genIdReply(write(id)));
    },
    '/genids': async (query, head, _url, flow) => {
      const count = query.requiredWhole('count');
      checkBatchCount(count, maxBatch);
      const generator = ctx.generatorOf(query);
      const write = ctx.idWriter(query);
      if (head) return HEAD_OK;
      return batchReply(count, flow, (n) => generator.genIds(n), write);
    },
    '/genuuid': (query, head) => {
      const write = uuidWriter(query);
      if (head) return HEAD_OK;
      return service
        .genUuid()
        .then(write === undefined ? genIdReply : (uuid) => genIdReply(write(uuid)));
    },
    '/genuuids': async (query, head, _url, flow) => {
      const count = query.requiredWhole('count');
      checkBatchCount(count, maxBatch);
      const write = uuidWriter(query);
      if (head) return HEAD_OK;
      return batchReply(count, flow, (n) => service.genUuids(n), write);
    },
    '/api/snowflake/get/{key}': (_query, head, url) => {
      // Leaf's snowflake mode ignores the key, and Leaf's clients send their own: the named
      // generator of that name when the server has one, else the server's own.
      const generator = generators.find(leafKey(pathKey(url, LEAF_GET_PREFIX))) ?? service;
      if (head) return { status: 200, body: '', headers: TEXT_HEADERS };
      return generator.genId().then((id) => {
        metrics.countIdsIssued(1);
        return { status: 200, body: String(id), headers: TEXT_HEADERS, ids: 1 };
      });
    },
  };
}
