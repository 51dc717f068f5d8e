import { defineCoordinator } from '@vesta/lease';
import { ZooKeeperAdmin } from './ZooKeeperAdmin.js';
import { zooKeeperMachineIdModule } from './zooKeeperMachineIdModule.js';

/** ZooKeeper as `--coordinator` takes it: a connect string and a root. */
export const zooKeeperCoordinator = defineCoordinator({
  schemes: ['zookeeper'],
  form: 'zookeeper://host:port[,host:port][/root][?option=value...]',
  example: 'zookeeper://zk1.internal:2181,zk2.internal:2181/vesta/prod',
  module: zooKeeperMachineIdModule,
  admin: (options) => new ZooKeeperAdmin(options),
});
