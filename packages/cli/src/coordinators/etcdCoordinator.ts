import { defineCoordinator } from './defineCoordinator.js';

/**
 * etcd leases (`@vesta/etcd`): endpoints and key prefix (the provider's default when the URL has
 * no path). The URL goes to the package whole: its query sets any of the provider's options.
 */
export const etcdCoordinator = defineCoordinator({
  schemes: ['etcd'],
  form: 'etcd://host:port[,host:port][/root][?option=value...]',
  example: 'etcd://etcd1.internal:2379,etcd2.internal:2379/vesta/prod?fenceAfterMs=6000',
  parse: (url) => ({ url }),
  package: '@vesta/etcd',
  load: () => import('@vesta/etcd'),
  module: (pkg, options) => pkg.etcdMachineIdModule(options),
  admin: (pkg, options) => new pkg.EtcdAdmin(options),
});
