import { VestaError } from '@vesta/core';

/**
 * A client URL with Vesta's own query parameters (`?prefix=`, `?schema=&table=`) → `url`, the URL
 * the client library takes (without them), and each parameter given; INVALID_OPTIONS for a text
 * that is no URL (the message shows `form`) or an unknown parameter (`what` names the coordinator).
 */
export function parseClientUrl<const P extends string>(
  text: string,
  what: string,
  form: string,
  parameters: readonly P[],
): { url: string } & { [K in P]?: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--coordinator must be ${form}, got ${JSON.stringify(text)}`,
      {
        cause,
      },
    );
  }
  const known: readonly string[] = parameters;
  const unknown = [...url.searchParams.keys()].filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--coordinator: unknown ${what} URL parameter ${unknown.join(', ')} (only ${known.join(', ')})`,
    );
  }
  const given: { [K in P]?: string } = {};
  for (const name of parameters) {
    const value = url.searchParams.get(name);
    if (value !== null) given[name] = value;
  }
  url.search = '';
  return { ...given, url: url.toString() };
}
