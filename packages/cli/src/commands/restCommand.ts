import { Command } from 'commander';

/** `vesta rest` (not written yet). */
export function restCommand(): Command {
  return new Command('rest').description('not available yet').action(() => {
    console.error('vesta rest: not available yet');
    process.exitCode = 1;
  });
}
