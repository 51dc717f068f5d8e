import { VestaError } from '@vesta/core';
import { wholeNumber } from '@vesta/core/kit';
import { defineCoordinatorOptions, defineLeaseOptions, leaseOptionsShape } from '@vesta/lease';
import type { AdminOptionsOf, ReadUrl } from '@vesta/lease';
import type { RedisOptions } from 'ioredis';
import { z } from 'zod';

/** ioredis's options, how messages name the server (no credentials), whether via Sentinel. */
export type RedisTarget = {
  readonly client: RedisOptions;
  readonly where: string;
  readonly sentinel: boolean;
};

const FORMS =
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

/** `?path=` is a Unix socket; with Sentinel, the userinfo is the primary's credentials. */
function readRedisUrl(text: string): ReadUrl<RedisTarget> | undefined {
  const s = SENTINEL.exec(text);
  const href = s === null ? text : `redis://${s[1] === undefined ? '' : `${s[1]}@`}h${s[3]}`;
  if (!URL.canParse(href)) return undefined;
  const url = new URL(href);
  const params = url.searchParams;
  const take = (name: string): string | undefined | null => {
    const values = params.getAll(name);
    params.delete(name);
    return values.length > 1 ? null : values[0];
  };
  const [username, password] = [decoded(url.username), decoded(url.password)];
  if (username === undefined || password === undefined) return undefined;
  const given = (o: Record<string, unknown>): RedisOptions =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));
  if (s === null) {
    const [dbPath, db] = /^\/?(\d{1,5})?$/.exec(url.pathname) ?? [];
    const [path, scheme] = [take('path'), url.protocol.toLowerCase()];
    const bad = dbPath === undefined || path === null || path === '' || url.hostname === '';
    if (bad || (scheme !== 'redis:' && scheme !== 'rediss:')) return undefined;
    const [host, port] = [url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || 6379)];
    const tls = scheme === 'rediss:' ? {} : undefined;
    const client = given({ path, host, port, username, password, db: db && Number(db), tls });
    const where = path === undefined ? url.host : `unix:${path}`;
    return { target: { client, where, sentinel: false }, params };
  }
  const sentinels = (s[2] as string).split(',').map((part) => {
    const h = HOST.exec(part);
    return { host: h?.[1] ?? h?.[2] ?? '', port: Number(h?.[3] ?? 26_379) };
  });
  const [, name = '', db] = /^\/([^/]+)(?:\/(\d{1,5}))?\/?$/.exec(url.pathname) ?? [];
  const [sentinelUsername, sentinelPassword] = [take('sentinelUsername'), take('sentinelPassword')];
  const master = decoded(name);
  if (!master || sentinelUsername === null || sentinelPassword === null) return undefined;
  if (sentinels.some((x) => x.host === '' || x.port < 1 || x.port > 65_535)) return undefined;
  const client = given({
    sentinels,
    name: master,
    role: 'master',
    // Leaves a primary Sentinel demoted at once, not at its next failed request.
    failoverDetector: true,
    username,
    password,
    sentinelUsername,
    sentinelPassword,
    db: db && Number(db),
  });
  const where = `${master} via sentinel ${sentinels.map((x) => `${x.host}:${x.port}`).join(',')}`;
  return { target: { client, where, sentinel: true }, params };
}

const URL_ERROR = { error: `must be a URL like ${FORMS}` };
const PREFIX_ERROR = { error: 'must be letters, digits and . _ - : / (1 to 100)' };

/** The declaration of {@link RedisMachineIdOptions} (the shared ones are `@vesta/lease`'s). */
export const redisMachineIdOptions = defineLeaseOptions(
  'Redis',
  {
    /**
     * `redis://[[user]:password@]host:port[/db]` (`rediss://` for TLS), or
     * `redis+sentinel://[[user]:password@]host:port[,host:port]/master-name`; its query may set
     * the other options (`?prefix=prod&minReplicas=1`) and Sentinel's credentials.
     */
    url: z.string(URL_ERROR).refine((t) => readRedisUrl(t) !== undefined, URL_ERROR),
    /** The prefix of this fleet's keys (`{prefix}:id:3`...). @default 'vesta' */
    prefix: z
      .string(PREFIX_ERROR)
      .regex(/^[A-Za-z0-9._\-:/]{1,100}$/, PREFIX_ERROR)
      .default('vesta'),
    /** Deadline of each Redis request. @default 2000 */
    operationTimeoutMs: leaseOptionsShape.operationTimeoutMs.unwrap().default(2_000),
    /** The PX expiry of the live key, at least `fenceAfterMs`. @default fenceAfterMs + 2000 */
    leaseTtlMs: leaseOptionsShape.fenceAfterMs.unwrap().optional(),
    /**
     * Replicas that must acknowledge (`WAIT`) each claim and renewal; 0 trusts the primary alone.
     * @default 1 once the primary has an online replica (or is Sentinel's), else 0
     */
    minReplicas: wholeNumber(0, 100).optional(),
  },
  ['fallbackToCache'],
);

/** Options of {@link RedisMachineIdProvider}, as callers give them. */
export type RedisMachineIdOptions = Readonly<z.input<typeof redisMachineIdOptions.schema>>;

/** Resolves the provider's options (`resolve`) and the admin's (`resolveAdmin`). Throws INVALID_OPTIONS. */
export const redisOptions = defineCoordinatorOptions('Redis', redisMachineIdOptions, {
  url: { read: readRedisUrl, form: FORMS },
  admin: ['url', 'prefix'],
  without: ['fallbackToCache'],
  rules: (o) => {
    const leaseTtlMs = o.leaseTtlMs ?? o.fenceAfterMs + 2_000;
    if (leaseTtlMs < o.fenceAfterMs) {
      throw new VestaError(
        'INVALID_OPTIONS',
        `leaseTtlMs (${leaseTtlMs}) must be at least fenceAfterMs (${o.fenceAfterMs})`,
      );
    }
    return { set: { leaseTtlMs }, reclaimAtLeast: { leaseTtlMs }, ownerWaitMs: leaseTtlMs + 2_000 };
  },
});

export type ResolvedRedisMachineIdOptions = ReturnType<typeof redisOptions.resolve> & {
  readonly leaseTtlMs: number;
};

/** Options of {@link RedisAdmin}: the provider's `url` and `prefix`, and `timeoutMs`. */
export type RedisAdminOptions = AdminOptionsOf<typeof redisOptions.admin>;
