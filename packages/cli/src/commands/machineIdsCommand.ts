import { Command, Option } from 'commander';
import { coordinatorFor } from '../coordinators/coordinatorFor.js';
import { coordinatorHelp, coordinatorSchemes } from '../coordinators/coordinatorHelp.js';
import { adminSubcommands } from './adminSubcommands.js';

interface CoordinatorFlags {
  coordinator: string;
}

function connectionOptions(command: Command): Command {
  return command
    .addHelpText('after', coordinatorHelp())
    .addOption(
      new Option(
        '--coordinator <url>',
        `the coordinator: ${coordinatorSchemes()} (URL forms and examples below)`,
      )
        .env('VESTA_COORDINATOR')
        .makeOptionMandatory(),
    );
}

/** `vesta machine-ids`: the operators' view of machine-id allocations in any coordinator. */
export function machineIdsCommand(): Command {
  const { list, release, init, history } = adminSubcommands(
    'machine-ids',
    connectionOptions,
    (flags: CoordinatorFlags) => coordinatorFor(flags.coordinator).admin(flags.coordinator),
  );
  return new Command('machine-ids')
    .addHelpText('after', coordinatorHelp())
    .addCommand(list)
    .addCommand(release)
    .addCommand(init)
    .addCommand(history);
}
