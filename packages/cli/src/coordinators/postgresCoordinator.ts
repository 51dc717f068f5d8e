import { VestaError } from '@vesta/core';
import { PostgresAdmin, PostgresMachineIdProvider } from '@vesta/postgres';
import type { Coordinator } from './Coordinator.js';

const PARAMETERS = ['schema', 'table'] as const;

/** `postgres://user[:password]@host:port/database[?schema=s&table=t]` → the client's URL, schema, table. */
function parse(text: string): { url: string; schema?: string; table?: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--coordinator must be postgres://user@host:port/database[?schema=name&table=name], got ${JSON.stringify(text)}`,
      { cause },
    );
  }
  const unknown = [...url.searchParams.keys()].filter(
    (name) => !(PARAMETERS as readonly string[]).includes(name),
  );
  if (unknown.length > 0) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--coordinator: unknown PostgreSQL URL parameter ${unknown.join(', ')} (only schema, table)`,
    );
  }
  const schema = url.searchParams.get('schema') ?? undefined;
  const table = url.searchParams.get('table') ?? undefined;
  url.search = '';
  return {
    url: url.toString(),
    ...(schema === undefined ? {} : { schema }),
    ...(table === undefined ? {} : { table }),
  };
}

/** PostgreSQL leases (`@vesta/postgres`). */
export const postgresCoordinator: Coordinator = {
  schemes: ['postgres', 'postgresql'],
  form: 'postgres://user[:password]@host:port/database[?schema=name&table=name]',
  provider(text, context) {
    return new PostgresMachineIdProvider({
      ...parse(text),
      key: context.key,
      ...(context.stateDir === undefined ? {} : { stateDir: context.stateDir }),
      ...(context.logger === undefined ? {} : { logger: context.logger }),
    });
  },
  admin(text) {
    return new PostgresAdmin(parse(text));
  },
};
