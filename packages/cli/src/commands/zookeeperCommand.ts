import { Command } from 'commander';

/** `vesta zookeeper` (not written yet). */
export function zookeeperCommand(): Command {
  return new Command('zookeeper').description('not available yet').action(() => {
    console.error('vesta zookeeper: not available yet');
    process.exitCode = 1;
  });
}
