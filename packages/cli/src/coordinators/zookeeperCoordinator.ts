import { VestaError } from '@vesta/core';
import { ZooKeeperAdmin, ZooKeeperMachineIdProvider } from '@vesta/zookeeper';
import type { Coordinator } from './Coordinator.js';

/** `zookeeper://host:port[,host:port][/root]` → connect string and root (default /vesta). */
function parse(url: string): { connect: string; root: string | undefined } {
  const match = /^zookeeper:\/\/([^/?#]+)(\/[^?#]*)?$/.exec(url);
  if (match === null || match[1] === undefined) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--coordinator must be zookeeper://host:port[,host:port][/root], got ${JSON.stringify(url)}`,
    );
  }
  const root = match[2] === undefined || match[2] === '/' ? undefined : match[2];
  return { connect: match[1], root };
}

/** ZooKeeper leases (`@vesta/zookeeper`). */
export const zookeeperCoordinator: Coordinator = {
  schemes: ['zookeeper'],
  form: 'zookeeper://host:port[,host:port][/root]',
  provider(url, context) {
    const { connect, root } = parse(url);
    return new ZooKeeperMachineIdProvider({
      connect,
      key: context.key,
      ...(root === undefined ? {} : { root }),
      ...(context.stateDir === undefined ? {} : { stateDir: context.stateDir }),
      ...(context.logger === undefined ? {} : { logger: context.logger }),
    });
  },
  admin(url) {
    const { connect, root } = parse(url);
    return new ZooKeeperAdmin({ connect, ...(root === undefined ? {} : { root }) });
  },
};
