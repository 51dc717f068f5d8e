import { createRequire } from 'node:module';
import { Command } from 'commander';
import { decodeCommand } from './commands/decodeCommand.js';
import { formatCommand } from './commands/formatCommand.js';
import { machineIdsCommand } from './commands/machineIdsCommand.js';
import { makeCommand } from './commands/makeCommand.js';
import { restCommand } from './commands/restCommand.js';
import { serverCommand } from './commands/serverCommand.js';
import { zookeeperCommand } from './commands/zookeeperCommand.js';

/** The cli package's version: `../package.json` from `src/` in the workspace and from `dist/` once published. */
function cliVersion(): string {
  const manifest = createRequire(import.meta.url)('../package.json') as { version: string };
  return manifest.version;
}

/**
 * Makes commander's own usage errors (an unknown option, a missing required one...) read like
 * every other refusal of the CLI, `vesta <command>: INVALID_ARGUMENT: <reason>`, with a one-line
 * hint, in `command` and every subcommand below it.
 */
function codeUsageErrors(command: Command, name: string): void {
  command.showHelpAfterError(`(run "${name} --help" for usage)`).configureOutput({
    outputError: (text, write) => write(text.replace(/^error: /, `${name}: INVALID_ARGUMENT: `)),
  });
  for (const sub of command.commands) codeUsageErrors(sub, `${name} ${sub.name()}`);
}

/**
 * The `vesta` command line: one subcommand per mode, plus offline tools. A bad flag exits
 * non-zero with a one-line reason (and a one-line hint), never a screen of help.
 */
export function buildProgram(): Command {
  const program = new Command('vesta')
    .description('Vesta ids: unique, time-ordered, reversible 64-bit ids')
    .version(cliVersion(), '-V, --version', 'print the version of vesta')
    .addCommand(restCommand())
    .addCommand(serverCommand())
    .addCommand(decodeCommand())
    .addCommand(makeCommand())
    .addCommand(formatCommand())
    .addCommand(machineIdsCommand())
    .addCommand(zookeeperCommand());
  // Global options only before the subcommand: `vesta make --version 1` is make's version bit,
  // not the CLI's version.
  program.enablePositionalOptions();
  codeUsageErrors(program, 'vesta');
  return program;
}
