import { defineCoordinator } from './defineCoordinator.js';

/**
 * ZooKeeper leases (`@vesta/zookeeper`): connect string and root (the provider's default when the URL has
 * no path). The URL goes to the package whole: its query sets any of the provider's options.
 */
export const zookeeperCoordinator = defineCoordinator({
  schemes: ['zookeeper'],
  form: 'zookeeper://host:port[,host:port][/root][?option=value...]',
  example: 'zookeeper://zk1.internal:2181,zk2.internal:2181/vesta/prod',
  parse: (url) => ({ url }),
  package: '@vesta/zookeeper',
  load: () => import('@vesta/zookeeper'),
  module: (pkg, options) => pkg.zooKeeperMachineIdModule(options),
  admin: (pkg, options) => new pkg.ZooKeeperAdmin(options),
});
