import { defineCoordinator } from './defineCoordinator.js';

/**
 * PostgreSQL leases (`@vesta/postgres`): one server, or a primary and its standbys. The URL goes
 * to the package whole: its query sets any of the provider's options (`?schema=ids&table=m`).
 */
export const postgresCoordinator = defineCoordinator({
  schemes: ['postgres', 'postgresql'],
  form: 'postgres://user[:password]@host:port[,host:port...]/database[?schema=name&table=name&option=value...]',
  example: 'postgres://vesta:secret@db1.internal:5432,db2.internal:5432/app?schema=ids',
  parse: (url) => ({ url }),
  package: '@vesta/postgres',
  load: () => import('@vesta/postgres'),
  module: (pkg, options) => pkg.postgresMachineIdModule(options),
  admin: (pkg, options) => new pkg.PostgresAdmin(options),
});
