import { defineCoordinator, machineIdProviderModule } from '@vesta/lease';
import type { ContainerModule } from 'inversify';
import { PostgresAdmin } from './PostgresAdmin.js';
import type { PostgresMachineIdOptions } from './PostgresMachineIdOptions.js';
import { PostgresMachineIdProvider } from './PostgresMachineIdProvider.js';

/**
 * An inversify module binding `TOKENS.MachineIdProvider` to a PostgreSQL provider: one per service.
 *
 * @example
 * const ids = await createEmbeddedIdService({
 *   modules: [postgresMachineIdModule({ url: 'postgres://vesta@db:5432/app', key: 'orders-7' })],
 * });
 */
export const postgresMachineIdModule = (options: PostgresMachineIdOptions): ContainerModule =>
  machineIdProviderModule(new PostgresMachineIdProvider(options));

/** PostgreSQL as `--coordinator` takes it: one server, or a primary and its standbys. */
export const postgresCoordinator = defineCoordinator({
  schemes: ['postgres', 'postgresql'],
  form: 'postgres://user[:password]@host:port[,host:port...]/database[?schema=name&table=name&option=value...]',
  example: 'postgres://vesta:secret@db1.internal:5432,db2.internal:5432/app?schema=ids',
  module: postgresMachineIdModule,
  admin: (options) => new PostgresAdmin(options),
});
