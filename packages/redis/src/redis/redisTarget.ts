import type { RedisOptions } from 'ioredis';

/** Where a connection goes: ioredis's options for it, and how messages name it. */
export interface RedisTarget {
  /** ioredis's options: a host, or Sentinels and the master's name. */
  readonly client: RedisOptions;
  /** In messages, without credentials: `host:port`, or `master-name via sentinel host:port,...`. */
  readonly where: string;
  /** Whether the primary is found through Sentinel (and followed across its failovers). */
  readonly sentinel: boolean;
}

/** A Redis URL split into where to connect and the Vesta options in its query (`?prefix=`). */
export interface RedisUrl {
  readonly target: RedisTarget;
  /** The query's parameters but those of the client (Sentinel's credentials). */
  readonly params: URLSearchParams;
}

/** The URL forms, for messages. */
export const REDIS_URL_FORMS =
  'redis://[[user]:password@]host:port[/db][?option=value...], rediss://... (TLS) or ' +
  'redis+sentinel://[[user]:password@]host:port[,host:port...]/master-name[/db][?option=value...]';

/** Parameters of a Sentinel URL that belong to the client, not to Vesta's options. */
const SENTINEL_CLIENT_PARAMS = ['sentinelUsername', 'sentinelPassword'] as const;

const SENTINEL =
  /^(?:redis\+sentinel|sentinel):\/\/(?:([^/?#]*)@)?([^@/?#]+)\/([^/?#]+)(?:\/(\d{1,5}))?\/?(?:\?([^#]*))?$/i;
const HOST = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/i;

function port(text: string | undefined, fallback: number): number | undefined {
  if (text === undefined) return fallback;
  const value = Number(text);
  return value >= 1 && value <= 65_535 ? value : undefined;
}

/** `text` percent-decoded; undefined when its escapes are malformed. */
function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The user and password of a URL's userinfo; undefined when its escapes are malformed. */
function credentials(
  userinfo: string | undefined,
): Pick<RedisOptions, 'username' | 'password'> | undefined {
  if (userinfo === undefined) return {};
  const colon = userinfo.indexOf(':');
  const user = decoded(colon < 0 ? userinfo : userinfo.slice(0, colon));
  const password = colon < 0 ? undefined : decoded(userinfo.slice(colon + 1));
  if (user === undefined || (colon >= 0 && password === undefined)) return undefined;
  return {
    ...(user === '' ? {} : { username: user }),
    ...(password === undefined || password === '' ? {} : { password }),
  };
}

function sentinelUrl(text: string): RedisUrl | undefined {
  const m = SENTINEL.exec(text);
  if (m === null) return undefined;
  const [, userinfo, hostList = '', name = '', db, query = ''] = m;
  const sentinels: { host: string; port: number }[] = [];
  for (const part of hostList.split(',')) {
    const h = HOST.exec(part);
    const p = port(h?.[3], 26_379);
    const host = h?.[1] ?? h?.[2];
    if (host === undefined || p === undefined) return undefined;
    sentinels.push({ host, port: p });
  }
  const params = new URLSearchParams(query);
  const client: Record<string, string> = {};
  for (const name of SENTINEL_CLIENT_PARAMS) {
    const values = params.getAll(name);
    if (values.length > 1) return undefined;
    if (values[0] !== undefined) client[name] = values[0];
    params.delete(name);
  }
  const master = decoded(name);
  const auth = credentials(userinfo);
  if (master === undefined || master === '' || auth === undefined) return undefined;
  return {
    target: {
      client: {
        sentinels,
        name: master,
        role: 'master',
        // Leaves a primary Sentinel demoted at once, not at its next failed request.
        failoverDetector: true,
        ...auth,
        ...client,
        ...(db === undefined ? {} : { db: Number(db) }),
      },
      where: `${master} via sentinel ${sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`,
      sentinel: true,
    },
    params,
  };
}

function directUrl(text: string): RedisUrl | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if ((scheme !== 'redis' && scheme !== 'rediss') || url.hostname === '') return undefined;
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,5}$/.test(db)) return undefined;
  // A Unix socket, as ioredis reads it (`redis://localhost/?path=/run/redis.sock`).
  const paths = url.searchParams.getAll('path');
  if (paths.length > 1 || paths[0] === '') return undefined;
  const path = paths[0];
  url.searchParams.delete('path');
  const auth = credentials(
    url.username === '' && url.password === '' ? undefined : `${url.username}:${url.password}`,
  );
  if (auth === undefined) return undefined;
  return {
    target: {
      client: {
        ...(path === undefined ? {} : { path }),
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port === '' ? 6379 : Number(url.port),
        ...auth,
        ...(db === '' ? {} : { db: Number(db) }),
        ...(scheme === 'rediss' ? { tls: {} } : {}),
      },
      where: path === undefined ? url.host : `unix:${path}`,
      sentinel: false,
    },
    params: url.searchParams,
  };
}

/**
 * Reads a Redis URL: `redis://` and `rediss://` (one server, ioredis's form) or
 * `redis+sentinel://` (the primary of `master-name` as the listed Sentinels name it, followed
 * across failovers; `sentinelUsername` and `sentinelPassword` in the query are Sentinel's own
 * credentials, the userinfo the primary's). Undefined for a text of neither form.
 */
export function readRedisUrl(text: string): RedisUrl | undefined {
  return /^(redis\+)?sentinel:/i.test(text) ? sentinelUrl(text) : directUrl(text);
}
