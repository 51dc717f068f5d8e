import { Command, Option } from 'commander';
import { COORDINATORS, coordinatorFor } from '../coordinators/coordinatorFor.js';
import { adminSubcommands } from './adminSubcommands.js';

interface CoordinatorFlags {
  coordinator: string;
}

function connectionOptions(command: Command): Command {
  return command.addOption(
    new Option(
      '--coordinator <url>',
      `the coordinator: ${COORDINATORS.map((c) => c.form).join(', ')}`,
    )
      .env('VESTA_COORDINATOR')
      .makeOptionMandatory(),
  );
}

/** `vesta machine-ids`: the operators' view of machine-id allocations in any coordinator. */
export function machineIdsCommand(): Command {
  const [list, release] = adminSubcommands(
    'machine-ids',
    connectionOptions,
    (flags: CoordinatorFlags) => coordinatorFor(flags.coordinator).admin(flags.coordinator),
  );
  return new Command('machine-ids')
    .description(
      'machine-id allocations in a coordinator (ZooKeeper, Redis): list them, release one by hand',
    )
    .addCommand(list)
    .addCommand(release);
}
