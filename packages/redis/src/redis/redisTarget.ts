import type { RedisOptions } from 'ioredis';

/** Where a connection goes: ioredis's options, how messages name it (no credentials), whether via Sentinel. */
export interface RedisTarget {
  readonly client: RedisOptions;
  readonly where: string;
  readonly sentinel: boolean;
}

export const REDIS_URL_FORMS =
  'redis://[[user]:password@]host:port[/db][?option=value...], rediss://... (TLS) or ' +
  'redis+sentinel://[[user]:password@]host:port[,host:port...]/master-name[/db][?option=value...]';

const SENTINEL = /^(?:redis\+)?sentinel:\/\/(?:([^/?#]*)@)?([^@/?#]+)([^#]*)$/i;
const HOST = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/i;

const decoded = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

/** The value of `name` in `params`, taken out of them; null when given twice. */
function single(params: URLSearchParams, name: string): string | undefined | null {
  const values = params.getAll(name);
  params.delete(name);
  return values.length > 1 ? null : values[0];
}

/**
 * Reads `redis://`, `rediss://` (one server, ioredis's form, `?path=` a Unix socket) or
 * `redis+sentinel://` (`sentinelUsername`/`sentinelPassword` in the query are Sentinel's
 * credentials, the userinfo the primary's): the target and the query's other parameters
 * (Vesta's options); undefined for a text of no such form.
 */
export function readRedisUrl(
  text: string,
): { readonly target: RedisTarget; readonly params: URLSearchParams } | undefined {
  const s = SENTINEL.exec(text);
  let url: URL;
  try {
    url = new URL(s === null ? text : `redis://${s[1] === undefined ? '' : `${s[1]}@`}h${s[3]}`);
  } catch {
    return undefined;
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  const [user, password] = [decoded(url.username), decoded(url.password)];
  if (user === undefined || password === undefined) return undefined;
  const auth = {
    ...(user === '' ? {} : { username: user }),
    ...(password === '' ? {} : { password }),
  };
  const params = url.searchParams;
  if (s === null) {
    const [dbPath, db] = /^\/?(\d{1,5})?$/.exec(url.pathname) ?? [];
    const path = single(params, 'path');
    const bad = dbPath === undefined || path === null || path === '';
    if (bad || !['redis', 'rediss'].includes(scheme) || url.hostname === '') return undefined;
    const client = {
      ...(path === undefined ? {} : { path }),
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? 6379 : Number(url.port),
      ...auth,
      ...(db === undefined ? {} : { db: Number(db) }),
      ...(scheme === 'rediss' ? { tls: {} } : {}),
    };
    return {
      target: { client, where: path === undefined ? url.host : `unix:${path}`, sentinel: false },
      params,
    };
  }
  const sentinels: { host: string; port: number }[] = [];
  for (const part of (s[2] as string).split(',')) {
    const h = HOST.exec(part);
    const host = h?.[1] ?? h?.[2];
    const port = h?.[3] === undefined ? 26_379 : Number(h[3]);
    if (host === undefined || port < 1 || port > 65_535) return undefined;
    sentinels.push({ host, port });
  }
  const [, name = '', db] = /^\/([^/]+)(?:\/(\d{1,5}))?\/?$/.exec(url.pathname) ?? [];
  const master = decoded(name);
  const [sentinelUsername, sentinelPassword] = ['sentinelUsername', 'sentinelPassword'].map((p) =>
    single(params, p),
  );
  if (!master || sentinelUsername === null || sentinelPassword === null) return undefined;
  const client = {
    sentinels,
    name: master,
    role: 'master' as const,
    // Leaves a primary Sentinel demoted at once, not at its next failed request.
    failoverDetector: true,
    ...auth,
    ...(sentinelUsername === undefined ? {} : { sentinelUsername }),
    ...(sentinelPassword === undefined ? {} : { sentinelPassword }),
    ...(db === undefined ? {} : { db: Number(db) }),
  };
  const where = `${master} via sentinel ${sentinels.map((x) => `${x.host}:${x.port}`).join(',')}`;
  return { target: { client, where, sentinel: true }, params };
}
