import { VestaError } from '@vesta/core';
import { ZooKeeperAdmin, type MachineIdAllocation } from '@vesta/zookeeper';
import { Command, Option } from 'commander';
import { reportCommandError } from './reportCommandError.js';

interface ZkFlags {
  zookeeper: string;
  zkRoot?: string;
  json?: boolean;
  force?: boolean;
}

function admin(flags: ZkFlags): ZooKeeperAdmin {
  return new ZooKeeperAdmin({
    connect: flags.zookeeper,
    ...(flags.zkRoot === undefined ? {} : { root: flags.zkRoot }),
  });
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

function row(a: MachineIdAllocation): string[] {
  return [
    String(a.machineId),
    a.owner ?? '(released)',
    a.alive ? 'yes' : 'no',
    a.markMs === 0 ? '-' : new Date(a.markMs).toISOString(),
    `${(a.ageMs / 1000).toFixed(1)}s`,
  ];
}

function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `vesta zookeeper`: the operators' view of machine-id allocations (list, release). */
export function zookeeperCommand(): Command {
  const list = connectionOptions(
    new Command('list').description(
      'list the machine-id allocations: id, owner, alive, last mark, age',
    ),
  )
    .option('--json', 'one JSON object per line')
    .action(async (flags: ZkFlags) => {
      try {
        const rows = await admin(flags).list();
        if (flags.json === true) {
          for (const a of rows) console.log(JSON.stringify(a));
        } else {
          console.log(table([['ID', 'OWNER', 'ALIVE', 'LAST MARK', 'AGE'], ...rows.map(row)]));
        }
      } catch (error) {
        reportCommandError('zookeeper', error);
      }
    });
  const release = connectionOptions(
    new Command('release')
      .description('release a machine id by hand: its owner is cleared, its time mark kept')
      .argument('<machineId>', 'the machine id (0-1023)'),
  )
    .option('--force', 'also take it from a live instance (which then stops issuing for good)')
    .action(async (machineId: string, flags: ZkFlags) => {
      try {
        if (!/^[0-9]{1,4}$/.test(machineId)) {
          throw new VestaError(
            'INVALID_ARGUMENT',
            `machine id must be a whole number, got ${JSON.stringify(machineId)}`,
          );
        }
        const released = await admin(flags).release(Number(machineId), {
          force: flags.force === true,
        });
        console.log(
          `released machine id ${released.machineId} (owner ${released.owner ?? 'none'}${released.alive ? ', was alive' : ''})`,
        );
      } catch (error) {
        reportCommandError('zookeeper', error);
      }
    });
  return new Command('zookeeper')
    .description('machine-id allocations in ZooKeeper: list them, release one by hand')
    .addCommand(list)
    .addCommand(release);
}
