/**
 * A URL as messages may show it: its scheme and hosts, never its credentials (everything before
 * its last `@`) nor its query (which may hold `sslpassword=`, `sentinelPassword=`).
 * Any other text is returned as it is.
 *
 * @example withoutSecrets('redis://:hunter2@db:6379/0?x=1') // 'redis://***@db:6379/0?…'
 */
export function withoutSecrets(text: string): string {
  const url = /^([a-z][a-z0-9+.-]*:\/\/)(.*)$/is.exec(text);
  if (url === null) return text;
  let rest = url[2] ?? '';
  // The last `@` anywhere: a password may hold a raw `/`, `?` or `#` (masking too much is fine).
  const at = rest.lastIndexOf('@');
  if (at >= 0) rest = `***@${rest.slice(at + 1)}`;
  const query = rest.search(/[?#]/);
  return `${url[1] ?? ''}${query >= 0 ? `${rest.slice(0, query)}?…` : rest}`;
}
