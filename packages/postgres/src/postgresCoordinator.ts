import { defineCoordinator } from '@vesta/lease';
import { PostgresAdmin } from './PostgresAdmin.js';
import { postgresMachineIdModule } from './postgresMachineIdModule.js';

/** PostgreSQL as `--coordinator` takes it: one server, or a primary and its standbys. */
export const postgresCoordinator = defineCoordinator({
  schemes: ['postgres', 'postgresql'],
  form: 'postgres://user[:password]@host:port[,host:port...]/database[?schema=name&table=name&option=value...]',
  example: 'postgres://vesta:secret@db1.internal:5432,db2.internal:5432/app?schema=ids',
  module: postgresMachineIdModule,
  admin: (options) => new PostgresAdmin(options),
});
