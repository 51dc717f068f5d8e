import { VestaError } from '@vesta/core';
import { shown, type ParamScope, type RestParam, type RestRoute } from './restRoutes.js';

function decoded(part: string): string {
  try {
    return decodeURIComponent(part.includes('+') ? part.replaceAll('+', ' ') : part);
  } catch (cause) {
    const message = `malformed percent-encoding in the query: ${shown(part)}`;
    throw new VestaError('INVALID_ARGUMENT', message, { cause });
  }
}

/** The `{key}` after `prefix` in `url`, percent-decoded: one path segment, its own '/' encoded. */
function pathValue(url: string, prefix: string): string {
  const at = url.indexOf('?');
  const raw = url.slice(url.indexOf(prefix) + prefix.length, at < 0 ? undefined : at);
  // express also matches `{prefix}{key}/`.
  if (raw.includes('/')) {
    const why = "a key in a path is one segment: its '/' is %2F";
    throw new VestaError('INVALID_ARGUMENT', why, { details: { field: 'key' } });
  }
  try {
    return decodeURIComponent(raw);
  } catch (cause) {
    const why = 'malformed percent-encoding in the key';
    throw new VestaError('INVALID_ARGUMENT', why, { cause, details: { field: 'key' } });
  }
}

/** The parameters of one request, by name. */
export type Params = Readonly<Record<string, unknown>>;

/** A route's reader of a request's URL: strict (an unknown or repeated name is refused). */
export function paramsReader(
  route: Pick<RestRoute, 'path' | 'params'>,
  maxQueryLength: number,
  scope: ParamScope,
): (url: string) => Params {
  const query: [string, RestParam, boolean][] = [];
  const defaults: Record<string, unknown> = {};
  let path: [string, RestParam, string] | undefined;
  for (const [name, param] of Object.entries(route.params)) {
    // Every name has a slot: a value set later replaces it, cheaper than adding a property.
    defaults[name] = undefined;
    const at = route.path.indexOf(`{${name}}`);
    if (at >= 0) {
      path = [name, param, route.path.slice(0, at)];
      continue;
    }
    const absent = param.schema.safeParse(undefined);
    if (absent.success) defaults[name] = absent.data;
    query.push([name, param, !absent.success]);
  }
  const names = query.map(([name]) => name);
  const accepts = names.length === 0 ? 'takes none' : `accepts ${names.join(', ')}`;
  const none =
    path === undefined && query.every(([, , required]) => !required)
      ? Object.freeze({ ...defaults })
      : undefined;

  return (url) => {
    const at = url.indexOf('?');
    const bare = at < 0 || at === url.length - 1;
    if (bare && none !== undefined) return none;
    const given = new Map<string, string>();
    if (!bare) {
      if (url.length - at - 1 > maxQueryLength) {
        const why = `the query is longer than ${maxQueryLength} characters`;
        throw new VestaError('PAYLOAD_TOO_LARGE', why, { details: { maxLength: maxQueryLength } });
      }
      for (const part of url.slice(at + 1).split('&')) {
        if (part === '') continue;
        const eq = part.indexOf('=');
        const name = decoded(eq < 0 ? part : part.slice(0, eq));
        const value = eq < 0 ? '' : decoded(part.slice(eq + 1));
        if (!names.includes(name)) {
          const why = `unknown query parameter ${shown(name)}; ${route.path} ${accepts}`;
          const details = { parameter: name.slice(0, 40) };
          throw new VestaError('INVALID_ARGUMENT', why, { details });
        }
        if (given.has(name)) {
          const why = `query parameter ${shown(name)} is given more than once`;
          throw new VestaError('INVALID_ARGUMENT', why);
        }
        given.set(name, value);
      }
    }
    const params: Record<string, unknown> = { ...defaults };
    for (const [name, param, required] of query) {
      const raw = given.get(name);
      if (required && (raw === undefined || raw === '')) {
        const why = `query parameter ${JSON.stringify(name)} is required`;
        throw new VestaError('INVALID_ARGUMENT', why);
      }
      if (raw !== undefined) params[name] = param.read(raw, name, scope);
    }
    if (path !== undefined) params[path[0]] = path[1].read(pathValue(url, path[2]), path[0], scope);
    return params;
  };
}
