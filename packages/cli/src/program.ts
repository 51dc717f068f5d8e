import { Command } from 'commander';
import { decodeCommand } from './commands/decodeCommand.js';
import { makeCommand } from './commands/makeCommand.js';
import { restCommand } from './commands/restCommand.js';
import { serverCommand } from './commands/serverCommand.js';
import { zookeeperCommand } from './commands/zookeeperCommand.js';

/** The `vesta` command line: one subcommand per mode, plus offline tools. */
export function buildProgram(): Command {
  return new Command('vesta')
    .description('Vesta ids: unique, time-ordered, reversible 64-bit ids')
    .showHelpAfterError()
    .addCommand(restCommand())
    .addCommand(serverCommand())
    .addCommand(decodeCommand())
    .addCommand(makeCommand())
    .addCommand(zookeeperCommand());
}
