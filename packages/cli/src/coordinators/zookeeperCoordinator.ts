import { defineCoordinator } from './defineCoordinator.js';
import { parseHostListUrl } from './parseHostListUrl.js';

/** ZooKeeper leases (`@vesta/zookeeper`): connect string and root (the provider's default when the URL has no path). */
export const zookeeperCoordinator = defineCoordinator({
  schemes: ['zookeeper'],
  form: 'zookeeper://host:port[,host:port][/root]',
  example: 'zookeeper://zk1.internal:2181,zk2.internal:2181/vesta/prod',
  parse: (url) => parseHostListUrl(url, 'zookeeper', 'connect'),
  package: '@vesta/zookeeper',
  load: () => import('@vesta/zookeeper'),
  module: (pkg, options) => pkg.zooKeeperMachineIdModule(options),
  admin: (pkg, options) => new pkg.ZooKeeperAdmin(options),
});
