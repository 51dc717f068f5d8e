/**
 * Where a PostgreSQL URL points: one connection string per host (with the client's parameters,
 * `sslmode`...), how messages name them (no credentials), and whether only a server that takes
 * writes serves (libpq's `target_session_attrs=read-write`).
 */
export interface PostgresTarget {
  readonly hosts: readonly string[];
  readonly where: string;
  readonly readWrite: boolean;
}

/** The query's parameters that are the client's (node-postgres reads them from each host's URL). */
const CLIENT_PARAMS = [
  'ssl',
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'sslpassword',
  'application_name',
  'fallback_application_name',
  'options',
  'client_encoding',
  'connect_timeout',
];

const URL_PARTS = /^(postgres(?:ql)?:\/\/)(?:([^/?#]*)@)?([^@/?#]*)(\/[^?#]*)?(?:\?([^#]*))?$/i;
const HOST = /^(?:\[[0-9a-f:.]+\]|[^:[\],@\s%]+)(?::\d{1,5})?$/i;

/**
 * Reads `postgres://[user[:password]@]host[:port][,host[:port]...]/database[?...]` (libpq's
 * multi-host form, `target_session_attrs` read-write, the default with several hosts, or any):
 * the target and the query's other parameters; undefined for a text of no such form.
 */
export function readPostgresUrl(
  text: string,
): { readonly target: PostgresTarget; readonly params: URLSearchParams } | undefined {
  const m = URL_PARTS.exec(text);
  if (m === null) return undefined;
  const [, scheme = '', rawUserinfo, hostList = '', path = '', query = ''] = m;
  // A raw `@` of a password (the authority ends at the last one) is encoded for each host's URL.
  const userinfo = rawUserinfo === undefined ? '' : `${rawUserinfo.replace(/@/g, '%40')}@`;
  const params = new URLSearchParams(query);
  const attrsGiven = params.getAll('target_session_attrs');
  if (attrsGiven.length > 1) return undefined;
  const attrs = attrsGiven[0] ?? null;
  params.delete('target_session_attrs');
  if (attrs !== null && attrs !== 'read-write' && attrs !== 'any') return undefined;
  const client = new URLSearchParams();
  for (const name of CLIENT_PARAMS) {
    const values = params.getAll(name);
    if (values.length > 1) return undefined;
    if (values[0] !== undefined) client.append(name, values[0]);
    params.delete(name);
  }
  const clientQuery = client.size === 0 ? '' : `?${client.toString()}`;
  const parts = hostList.split(',');
  if (parts.some((part) => !HOST.test(part))) return undefined;
  const hosts: string[] = [];
  for (const part of parts) {
    const url = `${scheme}${userinfo}${part}${path}${clientQuery}`;
    try {
      if (new URL(url).hostname === '') return undefined;
    } catch {
      return undefined;
    }
    hosts.push(url);
  }
  return {
    target: {
      hosts,
      where: parts.join(','),
      readWrite: attrs === null ? hosts.length > 1 : attrs === 'read-write',
    },
    params,
  };
}
