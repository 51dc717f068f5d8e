import { Command } from 'commander';
import { coordinatorFor } from '../coordinators/coordinatorFor.js';
import { adminSubcommands } from './adminSubcommands.js';
import { addZooKeeperFlags, zooKeeperUrl, type ZooKeeperFlags } from './zooKeeperFlags.js';

/**
 * `vesta zookeeper list|release`: deprecated for one release, since `vesta machine-ids
 * list|release --coordinator zookeeper://...` does the same; it builds the admin of that URL and
 * prints the replacement once on stderr.
 */
export function zookeeperCommand(): Command {
  const { list, release } = adminSubcommands(
    'zookeeper',
    (command) => addZooKeeperFlags(command, true),
    async (flags: ZooKeeperFlags & { zookeeper: string }, subcommand) => {
      const url = await zooKeeperUrl(flags);
      const args = subcommand === 'release' ? ' <machineId>' : '';
      process.stderr.write(
        `vesta: vesta zookeeper is deprecated and will go in the next release; use vesta machine-ids ${subcommand}${args} --coordinator ${url}\n`,
      );
      return coordinatorFor(url).admin(url);
    },
  );
  return new Command('zookeeper').addCommand(list).addCommand(release);
}
