import { Command } from 'commander';

/** `vesta make` (not written yet). */
export function makeCommand(): Command {
  return new Command('make').description('not available yet').action(() => {
    console.error('vesta make: not available yet');
    process.exitCode = 1;
  });
}
