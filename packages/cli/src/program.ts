import { createRequire } from 'node:module';
import { Command } from 'commander';
import { decodeCommand } from './commands/decodeCommand.js';
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
    .addCommand(machineIdsCommand())
    .addCommand(zookeeperCommand());
  for (const command of [program, ...program.commands]) {
    command.showHelpAfterError(
      `(run "vesta ${command === program ? '' : `${command.name()} `}--help" for usage)`,
    );
  }
  return program;
}
