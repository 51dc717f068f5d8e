import { formatUuid, parseId, type UuidForm } from '@vesta/core';
import { segmentNumbersOf } from '@vesta/core/kit';
import type { RestContext } from './RestContext.js';
import {
  HEAD_OK,
  JSON_HEADERS,
  ok,
  TEXT_HEADERS,
  type RestReply,
  type RouteTable,
} from './RestReply.js';
import type { RestPath } from './restRoutes.js';
import { errorBody } from './sendRestError.js';

const TEXT_HEAD: RestReply = { status: 200, body: '', headers: TEXT_HEADERS };

function uuidWriter(form: UuidForm): ((uuid: string) => string) | undefined {
  return form === 'canonical' ? undefined : (uuid) => formatUuid(uuid, form);
}

/** Leaf's rendering of an instant: Unix ms, then yyyy-MM-dd HH:mm:ss.SSS (here in UTC). */
function leafTimestamp(date: Date): string {
  const iso = date.toISOString();
  return `${date.getTime()}(${iso.slice(0, 10)} ${iso.slice(11, 23)})`;
}

/** The fields given, without those left out. */
function given<T extends object>(fields: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as never;
}

/** What each route answers, over its parameters already read. */
export function routeHandlers(ctx: RestContext): RouteTable<RestPath> {
  const { service, generators, metrics, hooks, batches, segments } = ctx;

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
    '/expid': ({ id: text, format, scrambled }) => {
      const id = scrambled === undefined ? parseId(text, format) : scrambled.parse(text, format);
      const f = service.expId(id);
      const date = service.transTime(f.time, f.type).toISOString();
      return ok(
        `{"id":"${id}","machine":${f.machine},"seq":${f.seq},"time":${f.time},"genMethod":${f.genMethod},` +
          `"type":${f.type},"version":${f.version},"date":"${date}","layout":${ctx.layoutOf(f.type)}}`,
      );
    },
    '/expuuid': ({ uuid }) => ok(JSON.stringify(uuid)),
    '/transtime': ({ time, type }) => {
      const date = service.transTime(time, type).toISOString();
      return ok(`{"time":${time},"date":"${date}"}`);
    },
    '/makeid': ({ format, scrambled, ...fields }) => {
      const write = ctx.idWriter(format, scrambled);
      const id = service.makeId(given(fields));
      return ok(`{"id":"${write === undefined ? id : write(id)}"}`);
    },
    '/bounds': ({ from: fromMs, to: toMs, ...only }) => {
      const bounds = service.timeBounds(fromMs, toMs, given(only));
      return ok(
        JSON.stringify({
          from: new Date(fromMs).toISOString(),
          to: new Date(toMs).toISOString(),
          ...{ fromMs, toMs },
          ids: bounds.ids.map((r) => ({ ...r, min: String(r.min), max: String(r.max) })),
          uuids: bounds.uuids,
        }),
      );
    },
    '/api/snowflake/decodeSnowflakeId': ({ snowflakeId }) => {
      const f = service.expId(snowflakeId);
      const timestamp = leafTimestamp(service.transTime(f.time, f.type));
      return ok(
        JSON.stringify({ timestamp, workerId: String(f.machine), sequenceId: String(f.seq) }),
      );
    },
    '/info': () =>
      ok(
        JSON.stringify({
          ...service.info(),
          maxBatch: ctx.maxBatch,
          auth: ctx.authorized !== undefined,
          scrambling: ctx.scrambler !== undefined,
        }),
      ),
    '/generators': () => ok(JSON.stringify({ generators: generators.list() })),
    '/health': () => {
      if (hooks.health !== undefined) return hooks.health();
      const health = service.health();
      if (health.ok) return ok('{"status":"ok"}');
      return {
        status: 503,
        body: `{"status":"unavailable",${errorBody(health.code, health.message).slice(1)}`,
      };
    },
    '/metrics': async () => {
      const { contentType, body } = await metrics.render();
      return {
        status: 200,
        body,
        headers: ['content-type', contentType, ...JSON_HEADERS.slice(2)],
      };
    },
    '/openapi.json': () => ok(ctx.openApi),
  };
}
