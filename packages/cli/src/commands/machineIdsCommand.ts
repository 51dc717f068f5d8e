import { Command, Option } from 'commander';
import { adminSubcommands } from './adminSubcommands.js';
import { coordinatorHelp, coordinatorOf, coordinatorSchemes } from './coordinatorOf.js';

/** `vesta machine-ids`: the operators' view of machine-id allocations in any coordinator. */
export function machineIdsCommand(): Command {
  const subcommands = adminSubcommands(
    'machine-ids',
    (command) =>
      command
        .addHelpText('after', coordinatorHelp())
        .addOption(
          new Option(
            '--coordinator <url>',
            `the coordinator: ${coordinatorSchemes()} (URL forms and examples below)`,
          )
            .env('VESTA_COORDINATOR')
            .makeOptionMandatory(),
        ),
    async ({ coordinator }: { coordinator: string }) =>
      (await coordinatorOf(coordinator)).admin(coordinator),
  );
  const command = new Command('machine-ids').addHelpText('after', coordinatorHelp());
  for (const subcommand of Object.values(subcommands)) command.addCommand(subcommand);
  return command;
}
