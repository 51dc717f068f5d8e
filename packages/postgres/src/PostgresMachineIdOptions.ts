import { objectWith } from '@vesta/core/kit';
import { defineCoordinatorOptions, defineLeaseOptions } from '@vesta/lease';
import type { AdminOptionsOf } from '@vesta/lease';
import type pg from 'pg';
import { z } from 'zod';

const FORM =
  'postgres://user[:password]@host[:port][,host[:port]...]/database[?target_session_attrs=read-write|any&option=value...]';
/** The query's parameters that are the client's (node-postgres reads them from each host's URL). */
const CLIENT_PARAMS = `ssl sslmode sslrootcert sslcert sslkey sslpassword application_name
  fallback_application_name options client_encoding connect_timeout`.split(/\s+/);
const URL_PARTS = /^(postgres(?:ql)?:\/\/)(?:([^/?#]*)@)?([^@/?#]*)(\/[^?#]*)?(?:\?([^#]*))?$/i;
const HOST = /^(?:\[[0-9a-f:.]+\]|[^:[\],@\s%]+)(?::\d{1,5})?$/i;

/** libpq's multi-host form (`target_session_attrs` read-write, the default for several, or any). */
function readPostgresUrl(text: string) {
  const [, scheme = '', userinfo, hostList = '', path = '', query = ''] =
    URL_PARTS.exec(text) ?? [];
  if (scheme === '') return undefined;
  const [params, client] = [new URLSearchParams(query), new URLSearchParams()];
  for (const name of ['target_session_attrs', ...CLIENT_PARAMS]) {
    const [value, twice] = params.getAll(name);
    if (twice !== undefined) return undefined;
    if (value !== undefined) client.set(name, value);
    params.delete(name);
  }
  const attrs = client.get('target_session_attrs');
  client.delete('target_session_attrs');
  if (attrs !== null && attrs !== 'read-write' && attrs !== 'any') return undefined;
  // A raw `@` of a password (the authority ends at the last one) is encoded for each host's URL.
  const user = userinfo === undefined ? '' : `${userinfo.replace(/@/g, '%40')}@`;
  const [parts, q] = [hostList.split(','), client.size ? `?${client.toString()}` : ''];
  const hosts = parts.map((host) => `${scheme}${user}${host}${path}${q}`);
  const valid = (url: string, i: number) =>
    HOST.test(parts[i] ?? '') && URL.canParse(url) && new URL(url).hostname !== '';
  if (!hosts.every(valid)) return undefined;
  const readWrite = attrs === null ? hosts.length > 1 : attrs === 'read-write';
  return { target: { hosts, where: parts.join(','), readWrite }, params };
}

const URL_ERROR = { error: `must be a URL like ${FORM}` };
const ID_ERROR = {
  error: 'must be a lower-case SQL identifier (a-z, 0-9, _; at most 63), not starting with pg_',
};
/** A lower-case SQL identifier (quoted when used, so never injected); `pg_` is PostgreSQL's. */
const identifier = z.string(ID_ERROR).regex(/^(?!pg_)[a-z_][a-z0-9_]{0,62}$/, ID_ERROR);

const POOL = objectWith<pg.Pool>('a pg Pool (query, connect, end)', 'query', 'connect', 'end');

/** The declaration of {@link PostgresMachineIdOptions} (the shared ones are `@vesta/lease`'s). */
export const postgresMachineIdOptions = defineLeaseOptions('PostgreSQL', {
  /** `postgres://user:password@host:port[,host:port...]/database` (of several, the primary serves); its query may set the other options. */
  url: z.string(URL_ERROR).refine((t) => readPostgresUrl(t) !== undefined, URL_ERROR),
  /** The schema of the allocation table (created when missing). @default 'vesta' */
  schema: identifier.default('vesta'),
  /** The allocation table (created when missing). @default 'machine_ids' */
  table: identifier.default('machine_ids'),
  /** A pool of the application's own to run on, never ended here. @default a pool of two per acquisition */
  pool: POOL.optional(),
});

/** Options of {@link PostgresMachineIdProvider}, as callers give them. */
export type PostgresMachineIdOptions = Readonly<z.input<typeof postgresMachineIdOptions.schema>>;

/** Resolves the provider's options (`resolve`) and the admin's (`resolveAdmin`). */
export const postgresOptions = defineCoordinatorOptions('PostgreSQL', postgresMachineIdOptions, {
  url: { read: readPostgresUrl, form: FORM },
  admin: ['url', 'schema', 'table'],
});

export type ResolvedPostgresMachineIdOptions = ReturnType<typeof postgresOptions.resolve>;

/** Options of {@link PostgresAdmin}: the provider's `url`, `schema` and `table`, and `timeoutMs`. */
export type PostgresAdminOptions = AdminOptionsOf<typeof postgresOptions.admin>;
