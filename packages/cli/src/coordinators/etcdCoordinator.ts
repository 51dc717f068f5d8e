import { VestaError } from '@vesta/core';
import { EtcdAdmin, EtcdMachineIdProvider } from '@vesta/etcd';
import type { Coordinator } from './Coordinator.js';

/** `etcd://host:port[,host:port][/root]` → endpoints and key prefix (default /vesta). */
function parse(url: string): { endpoints: string; root?: string } {
  const match = /^etcd:\/\/([^/?#]+)(\/[^?#]*)?$/.exec(url);
  if (match === null || match[1] === undefined) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--coordinator must be etcd://host:port[,host:port][/root], got ${JSON.stringify(url)}`,
    );
  }
  const root = match[2] === undefined || match[2] === '/' ? undefined : match[2];
  return { endpoints: match[1], ...(root === undefined ? {} : { root }) };
}

/** etcd leases (`@vesta/etcd`). */
export const etcdCoordinator: Coordinator = {
  schemes: ['etcd'],
  form: 'etcd://host:port[,host:port][/root]',
  provider(url, context) {
    return new EtcdMachineIdProvider({
      ...parse(url),
      key: context.key,
      ...(context.stateDir === undefined ? {} : { stateDir: context.stateDir }),
      ...(context.logger === undefined ? {} : { logger: context.logger }),
    });
  },
  admin(url) {
    return new EtcdAdmin(parse(url));
  },
};
