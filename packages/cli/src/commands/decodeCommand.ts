import { Command } from 'commander';

/** `vesta decode` (not written yet). */
export function decodeCommand(): Command {
  return new Command('decode').description('not available yet').action(() => {
    console.error('vesta decode: not available yet');
    process.exitCode = 1;
  });
}
