import { defineCoordinator } from './defineCoordinator.js';
import { parseClientUrl } from './parseClientUrl.js';

/** PostgreSQL leases (`@vesta/postgres`): the client's URL, schema and table (`?schema=&table=`). */
export const postgresCoordinator = defineCoordinator({
  schemes: ['postgres', 'postgresql'],
  form: 'postgres://user[:password]@host:port/database[?schema=name&table=name]',
  example: 'postgres://vesta:secret@db.internal:5432/app?schema=ids',
  parse: (text) =>
    parseClientUrl(
      text,
      'PostgreSQL',
      'postgres://user@host:port/database[?schema=name&table=name]',
      ['schema', 'table'],
    ),
  package: '@vesta/postgres',
  load: () => import('@vesta/postgres'),
  module: (pkg, options) => pkg.postgresMachineIdModule(options),
  admin: (pkg, options) => new pkg.PostgresAdmin(options),
});
