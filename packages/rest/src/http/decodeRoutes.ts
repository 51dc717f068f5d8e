import { decodeUuid, parseId, type MakeIdFields, type TimeBoundsFilter } from '@vesta/core';
import { parseInstant } from '@vesta/core/kit';
import type { QueryParams } from './QueryParams.js';
import { ok, type RouteTable } from './RestReply.js';
import type { RestContext } from './RestContext.js';

/** Leaf's rendering of an instant: Unix ms, then yyyy-MM-dd HH:mm:ss.SSS (here in UTC). */
function leafTimestamp(date: Date): string {
  const iso = date.toISOString();
  return `${date.getTime()}(${iso.slice(0, 10)} ${iso.slice(11, 23)})`;
}

/** An instant parameter (`from`, `to`): Unix ms or ISO-8601, as `epoch` is read; else INVALID_ARGUMENT. */
function instant(query: QueryParams, name: string): number {
  return parseInstant(query.required(name), name);
}

/** The routes that read or build ids without issuing: `/expid`, `/expuuid`, `/transtime`, `/makeid`, `/bounds`, Leaf's decode. */
export function decodeRoutes(
  ctx: RestContext,
): RouteTable<
  '/expid' | '/expuuid' | '/transtime' | '/makeid' | '/bounds' | '/api/snowflake/decodeSnowflakeId'
> {
  const { service } = ctx;
  return {
    '/expid': (query) => {
      const text = query.required('id');
      const form = ctx.formOf(query);
      const scramble = ctx.scramblerOf(query);
      const id = scramble === undefined ? parseId(text, form) : scramble.parse(text, form);
      const f = service.expId(id);
      const date = service.transTime(f.time, f.type).toISOString();
      return ok(
        `{"id":"${id}","machine":${f.machine},"seq":${f.seq},"time":${f.time},"genMethod":${f.genMethod},` +
          `"type":${f.type},"version":${f.version},"date":"${date}","layout":${ctx.layoutOf(f.type)}}`,
      );
    },
    '/expuuid': (query) => ok(JSON.stringify(decodeUuid(query.required('uuid')))),
    '/transtime': (query) => {
      const time = query.requiredWhole('time');
      const date = service.transTime(time, ctx.optionalType(query)).toISOString();
      return ok(`{"time":${time},"date":"${date}"}`);
    },
    '/makeid': (query) => {
      const fields: { -readonly [K in keyof MakeIdFields]: MakeIdFields[K] } = {
        time: query.requiredWhole('time'),
        seq: query.requiredWhole('seq'),
      };
      const machine = query.optionalWhole('machine');
      const genMethod = query.optionalWhole('genMethod');
      const type = ctx.optionalType(query);
      const version = query.optionalWhole('version');
      if (machine !== undefined) fields.machine = machine;
      if (genMethod !== undefined) fields.genMethod = genMethod;
      if (type !== undefined) fields.type = type;
      if (version !== undefined) fields.version = version;
      const write = ctx.idWriter(query);
      const id = service.makeId(fields);
      return ok(`{"id":"${write === undefined ? id : write(id)}"}`);
    },
    '/bounds': (query) => {
      const fromMs = instant(query, 'from');
      const toMs = instant(query, 'to');
      const only: { -readonly [K in keyof TimeBoundsFilter]: TimeBoundsFilter[K] } = {};
      const genMethod = query.optionalWhole('genMethod');
      const type = ctx.optionalType(query);
      const version = query.optionalWhole('version');
      if (genMethod !== undefined) only.genMethod = genMethod;
      if (type !== undefined) only.type = type;
      if (version !== undefined) only.version = version;
      const bounds = service.timeBounds(fromMs, toMs, only);
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
    '/api/snowflake/decodeSnowflakeId': (query) => {
      const f = service.expId(parseId(query.required('snowflakeId')));
      const date = service.transTime(f.time, f.type);
      return ok(
        JSON.stringify({
          timestamp: leafTimestamp(date),
          workerId: String(f.machine),
          sequenceId: String(f.seq),
        }),
      );
    },
  };
}
