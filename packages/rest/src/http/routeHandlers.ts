import { formatId, formatUuid, IdConverter, parseId, type IdForm } from '@vesta/core';
import type { IdScrambler, IdType, UuidForm } from '@vesta/core';
import { FairIdQueue, FairIdShare, segmentNumbersOf, vestaLayout } from '@vesta/core/kit';
import type { ResolvedRestAppOptions } from '../RestAppOptions.js';
import { buildOpenApiDocument } from './buildOpenApiDocument.js';
import type { ParamsOf, RestPath } from './restRoutes.js';
import { errorBody, JSON_HEADERS } from './sendRestError.js';

/** What a server built over the handlers answers in place of the service's own (a cluster worker's). */
export interface RestHandlerHooks {
  /** The answer of `/health` (status 200 or 503, a JSON body) in place of the service's health. */
  readonly health?: () => Promise<{ readonly status: number; readonly body: string }>;
}

/** A route's answer, written by the handler that serves the route. */
export interface RestReply {
  readonly status: number;
  readonly body: string | Buffer;
  /** Pre-built response headers, as a flat `[name, value, ...]` list. */
  readonly headers?: string[];
  /** Ids issued by the request, for the access log. @default 0 */
  readonly ids?: number;
}

const ok = (body: string, ids?: number): RestReply =>
  ids === undefined ? { status: 200, body } : { status: 200, body, ids };

/** The answer to a HEAD of a route that issues ids: GET's headers, no body, no id consumed. */
const HEAD_OK: RestReply = ok('');

/** The headers of a plain-text answer (Leaf's paths answer the number alone). */
const TEXT_HEADERS = ['content-type', 'text/plain; charset=utf-8', ...JSON_HEADERS.slice(2)];

const TEXT_HEAD: RestReply = { status: 200, body: '', headers: TEXT_HEADERS };

function uuidWriter(form: UuidForm): ((uuid: string) => string) | undefined {
  return form === 'canonical' ? undefined : (uuid) => formatUuid(uuid, form);
}

/** Leaf's rendering of an instant: Unix ms, then yyyy-MM-dd HH:mm:ss.SSS (here in UTC). */
function leafTimestamp(date: Date): string {
  const iso = date.toISOString();
  return `${date.getTime()}(${iso.slice(0, 10)} ${iso.slice(11, 23)})`;
}

function given<T extends object>(fields: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as never;
}

/** What each route answers, over its parameters already read; on `head` a route that issues must not. */
export function routeHandlers(
  options: ResolvedRestAppOptions,
  hooks: RestHandlerHooks,
): {
  readonly [P in RestPath]: (
    params: ParamsOf<P>,
    head: boolean,
    flow: object,
  ) => RestReply | Promise<RestReply>;
} {
  const { service, generators, metrics, segments } = options;
  const info = service.info();
  const auth = options.authToken !== undefined;
  const openApi = JSON.stringify(buildOpenApiDocument(info, options.maxBatch, auth));
  const batches = new FairIdQueue(
    new FairIdShare({ idsPerUnit: 2 ** info.layout.seqBits, unitMs: info.unitMs }),
  );
  // The same rule as the service's codec for which layout decodes an id of each type.
  const codec = new IdConverter(vestaLayout(info.type, info.layout), info.epochMs);
  const layoutJson = new Map<IdType, string>();
  /** The widths and unit of the layout of ids of `type`, as JSON. */
  const layoutOf = (type: IdType): string => {
    let json = layoutJson.get(type);
    if (json === undefined) {
      const layout = codec.layoutOf(type);
      json = JSON.stringify({ ...layout.widths, unitMs: layout.unitMs });
      layoutJson.set(type, json);
    }
    return json;
  };
  /** How ids are written in `form`, scrambled by `scramble` when given; undefined for plain decimal. */
  const idWriter = (form: IdForm, scramble: IdScrambler | undefined) => {
    if (scramble !== undefined) return (id: bigint) => scramble.format(id, form);
    return form === 'decimal' ? undefined : (id: bigint) => formatId(id, form);
  };

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
      const write = idWriter(format, scrambled);
      if (head) return HEAD_OK;
      return (key ?? service).genId().then(write === undefined ? one : (id) => one(write(id)));
    },
    '/genids': ({ count, key, format, scrambled }, head, flow) => {
      const write = idWriter(format, scrambled);
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
          `"type":${f.type},"version":${f.version},"date":"${date}","layout":${layoutOf(f.type)}}`,
      );
    },
    '/expuuid': ({ uuid }) => ok(JSON.stringify(uuid)),
    '/transtime': ({ time, type }) => {
      const date = service.transTime(time, type).toISOString();
      return ok(`{"time":${time},"date":"${date}"}`);
    },
    '/makeid': ({ format, scrambled, ...fields }) => {
      const write = idWriter(format, scrambled);
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
          maxBatch: options.maxBatch,
          auth,
          scrambling: options.scrambler !== undefined,
        }),
      ),
    '/generators': () => ok(JSON.stringify({ generators: generators.list() })),
    '/health': () => {
      if (hooks.health !== undefined) return hooks.health();
      const health = service.health();
      if (health.ok) return ok('{"status":"ok"}');
      const body = `{"status":"unavailable",${errorBody(health.code, health.message).slice(1)}`;
      return { status: 503, body };
    },
    '/metrics': async () => {
      const { contentType, body } = await metrics.render();
      const headers = ['content-type', contentType, ...JSON_HEADERS.slice(2)];
      return { status: 200, body, headers };
    },
    '/openapi.json': () => ok(openApi),
  };
}
