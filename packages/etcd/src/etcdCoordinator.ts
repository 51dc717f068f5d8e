import { defineCoordinator } from '@vesta/lease';
import { EtcdAdmin } from './EtcdAdmin.js';
import { etcdMachineIdModule } from './etcdMachineIdModule.js';

/** etcd as `--coordinator` takes it: endpoints and a key prefix. */
export const etcdCoordinator = defineCoordinator({
  schemes: ['etcd'],
  form: 'etcd://host:port[,host:port][/root][?option=value...]',
  example: 'etcd://etcd1.internal:2379,etcd2.internal:2379/vesta/prod?fenceAfterMs=6000',
  module: etcdMachineIdModule,
  admin: (options) => new EtcdAdmin(options),
});
