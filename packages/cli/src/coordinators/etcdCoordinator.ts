import { defineCoordinator } from './defineCoordinator.js';
import { parseHostListUrl } from './parseHostListUrl.js';

/** etcd leases (`@vesta/etcd`): endpoints and key prefix (the provider's default when the URL has no path). */
export const etcdCoordinator = defineCoordinator({
  schemes: ['etcd'],
  form: 'etcd://host:port[,host:port][/root]',
  example: 'etcd://etcd1.internal:2379,etcd2.internal:2379/vesta/prod',
  parse: (url) => parseHostListUrl(url, 'etcd', 'endpoints'),
  package: '@vesta/etcd',
  load: () => import('@vesta/etcd'),
  module: (pkg, options) => pkg.etcdMachineIdModule(options),
  admin: (pkg, options) => new pkg.EtcdAdmin(options),
});
