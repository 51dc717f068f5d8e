import { Command } from 'commander';

/** `vesta server` (not written yet). */
export function serverCommand(): Command {
  return new Command('server').description('not available yet').action(() => {
    console.error('vesta server: not available yet');
    process.exitCode = 1;
  });
}
