import { parseId } from '@vesta/core';
import { ok, type RouteTable } from './RestReply.js';
import type { RestContext } from './RestContext.js';

/** Leaf's rendering of an instant: Unix ms, then yyyy-MM-dd HH:mm:ss.SSS (here in UTC). */
function leafTimestamp(date: Date): string {
  const iso = date.toISOString();
  return `${date.getTime()}(${iso.slice(0, 10)} ${iso.slice(11, 23)})`;
}

/** The fields given, without those left out. */
function given<T extends object>(fields: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as never;
}

/** The routes that read or build ids without issuing. */
export function decodeRoutes(
  ctx: RestContext,
): RouteTable<
  '/expid' | '/expuuid' | '/transtime' | '/makeid' | '/bounds' | '/api/snowflake/decodeSnowflakeId'
> {
  const { service } = ctx;
  return {
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
          fromMs,
          toMs,
          ids: bounds.ids.map((r) => ({ ...r, min: String(r.min), max: String(r.max) })),
          uuids: bounds.uuids,
        }),
      );
    },
    '/api/snowflake/decodeSnowflakeId': ({ snowflakeId }) => {
      const f = service.expId(snowflakeId);
      return ok(
        JSON.stringify({
          timestamp: leafTimestamp(service.transTime(f.time, f.type)),
          workerId: String(f.machine),
          sequenceId: String(f.seq),
        }),
      );
    },
  };
}
