import { VestaError } from '@vesta/core';
import { wholeNumber } from '@vesta/core/kit';
import { defineCoordinatorOptions, defineLeaseOptions, leaseOptionsShape } from '@vesta/lease';
import type { AdminOptionsOf } from '@vesta/lease';
import type { RedisOptions } from 'ioredis';
import { z } from 'zod';

const FORMS =
  'redis://[[user]:password@]host:port[/db][?option=value...], rediss://... (TLS) or ' +
  'redis+sentinel://[[user]:password@]host:port[,host:port...]/master-name[/db][?option=value...]';
const SENTINEL = /^(?:redis\+)?sentinel:\/\/([^/?#]*@)?([^@/?#]+)([^#]*)$/i;
const HOST = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/i;

/** ioredis's options, the server as messages name it (no credentials), whether via Sentinel. */
function readRedisUrl(text: string) {
  try {
    const s = SENTINEL.exec(text);
    const url = new URL(s === null ? text : `redis://${s[1] ?? ''}h${s[3]}`);
    const params = url.searchParams;
    const take = (name: string): string | undefined => {
      const [value, twice] = params.getAll(name);
      params.delete(name);
      if (twice !== undefined) throw new Error(`${name} given twice`);
      return value;
    };
    const [username, password] = [url.username, url.password].map(decodeURIComponent);
    const read = (where: string, options: object, db?: string) => {
      const all = Object.entries({ ...options, username, password, db: db && Number(db) });
      const client = Object.fromEntries(all.filter(([, v]) => v !== undefined && v !== ''));
      return { target: { client: client as RedisOptions, where, sentinel: s !== null }, params };
    };
    if (s === null) {
      // `?path=` is a Unix socket.
      const [dbPath, db] = /^\/?(\d{1,5})?$/.exec(url.pathname) ?? [];
      const [path, tls] = [take('path'), url.protocol === 'rediss:' ? {} : undefined];
      if (dbPath === undefined || path === '' || url.hostname === '') return undefined;
      if (url.protocol !== 'redis:' && !tls) return undefined;
      const [host, port] = [url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || 6379)];
      return read(path === undefined ? url.host : `unix:${path}`, { path, host, port, tls }, db);
    }
    const sentinels = (s[2] as string).split(',').map((part) => {
      const h = HOST.exec(part);
      return { host: h?.[1] ?? h?.[2] ?? '', port: Number(h?.[3] ?? 26_379) };
    });
    const [, name = '', db] = /^\/([^/]+)(?:\/(\d{1,5}))?\/?$/.exec(url.pathname) ?? [];
    const master = decodeURIComponent(name);
    if (!master || sentinels.some((x) => x.host === '' || x.port < 1 || x.port > 65_535)) return;
    const where = `${master} via sentinel ${sentinels.map((x) => `${x.host}:${x.port}`).join(',')}`;
    // The userinfo is the primary's credentials; the failover detector leaves a primary Sentinel
    // demoted at once, not at its next failed request.
    const [sentinelUsername, sentinelPassword] = ['sentinelUsername', 'sentinelPassword'].map(take);
    const client = { sentinels, name: master, role: 'master' as const, failoverDetector: true };
    return read(where, { ...client, sentinelUsername, sentinelPassword }, db);
  } catch {
    return undefined;
  }
}

const URL_ERROR = { error: `must be a URL like ${FORMS}` };
const PREFIX_ERROR = { error: 'must be letters, digits and . _ - : / (1 to 100)' };
const PREFIX = z.string(PREFIX_ERROR).regex(/^[A-Za-z0-9._\-:/]{1,100}$/, PREFIX_ERROR);

const SHAPE = {
  /** `redis://`, `rediss://` (TLS) or `redis+sentinel://` (see the README); its query may set the other options. */
  url: z.string(URL_ERROR).refine((t) => readRedisUrl(t) !== undefined, URL_ERROR),
  /** The prefix of this fleet's keys (`{prefix}:id:3`...). @default 'vesta' */
  prefix: PREFIX.default('vesta'),
  /** @default 2000 */
  operationTimeoutMs: leaseOptionsShape.operationTimeoutMs.unwrap().default(2_000),
  /** The PX expiry of the live key, at least `fenceAfterMs`. @default fenceAfterMs + 2000 */
  leaseTtlMs: leaseOptionsShape.fenceAfterMs.unwrap().optional(),
  /** Replicas that must acknowledge (`WAIT`) each claim and renewal. @default 1 once the primary has an online replica (or is Sentinel's), else 0 */
  minReplicas: wholeNumber(0, 100).optional(),
};

/** The declaration of {@link RedisMachineIdOptions} (the shared ones are `@vesta/lease`'s). */
export const redisMachineIdOptions = defineLeaseOptions('Redis', SHAPE, ['fallbackToCache']);

/** Options of {@link RedisMachineIdProvider}, as callers give them. */
export type RedisMachineIdOptions = Readonly<z.input<typeof redisMachineIdOptions.schema>>;

/** Resolves the provider's options (`resolve`) and the admin's (`resolveAdmin`). */
export const redisOptions = defineCoordinatorOptions('Redis', redisMachineIdOptions, {
  url: { read: readRedisUrl, form: FORMS },
  admin: ['url', 'prefix'],
  without: ['fallbackToCache'],
  rules: (o) => {
    const leaseTtlMs = o.leaseTtlMs ?? o.fenceAfterMs + 2_000;
    if (leaseTtlMs < o.fenceAfterMs) {
      const message = `leaseTtlMs (${leaseTtlMs}) must be at least fenceAfterMs (${o.fenceAfterMs})`;
      throw new VestaError('INVALID_OPTIONS', message);
    }
    return { set: { leaseTtlMs }, reclaimAtLeast: { leaseTtlMs }, ownerWaitMs: leaseTtlMs + 2_000 };
  },
});

export type ResolvedRedisMachineIdOptions = ReturnType<typeof redisOptions.resolve> & {
  readonly leaseTtlMs: number;
};

/** Options of {@link RedisAdmin}: the provider's `url` and `prefix`, and `timeoutMs`. */
export type RedisAdminOptions = AdminOptionsOf<typeof redisOptions.admin>;
