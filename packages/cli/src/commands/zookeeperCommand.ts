import { ZooKeeperAdmin } from '@vesta/zookeeper';
import { Command, Option } from 'commander';
import { adminSubcommands } from './adminSubcommands.js';

interface ZkFlags {
  zookeeper: string;
  zkRoot?: string;
}

function connectionOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--zookeeper <hosts>', 'ZooKeeper servers (host:port[,host:port])')
        .env('VESTA_ZOOKEEPER')
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--zk-root <path>', 'path prefix of the fleet (default /vesta)').env(
        'VESTA_ZK_ROOT',
      ),
    );
}

/** `vesta zookeeper`: the operators' view of machine-id allocations in ZooKeeper (list, release). */
export function zookeeperCommand(): Command {
  const [list, release] = adminSubcommands(
    'zookeeper',
    connectionOptions,
    (flags: ZkFlags) =>
      new ZooKeeperAdmin({
        connect: flags.zookeeper,
        ...(flags.zkRoot === undefined ? {} : { root: flags.zkRoot }),
      }),
  );
  return new Command('zookeeper')
    .description('machine-id allocations in ZooKeeper: list them, release one by hand')
    .addCommand(list)
    .addCommand(release);
}
