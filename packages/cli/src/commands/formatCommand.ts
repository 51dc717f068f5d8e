import { formatId, ID_FORMS, parseId, VestaError } from '@vesta/core';
import { Command } from 'commander';
import { addSchemaFlags } from './addSchemaFlags.js';
import { formFlag, SCRAMBLE_KEY, scramblerOf } from './idFormFlags.js';
import { reportCommandError } from './reportCommandError.js';

export interface FormatFlags {
  from?: string;
  to?: string;
  scramble?: boolean;
  unscramble?: boolean;
  scrambleKey?: string;
}

/** Rewrites ids from `--from` to `--to`, offline; INVALID_ARGUMENT, INVALID_OPTIONS. */
export function convertIds(ids: readonly string[], flags: FormatFlags): string[] {
  const from = formFlag(flags.from, '--from');
  const to = formFlag(flags.to ?? 'base32', '--to');
  if (flags.scramble === true && flags.unscramble === true) {
    throw new VestaError('INVALID_OPTIONS', 'give at most one of --scramble and --unscramble');
  }
  const scrambling = flags.scramble === true || flags.unscramble === true;
  const scrambler = scrambling
    ? scramblerOf(flags.scrambleKey, flags.scramble === true ? '--scramble' : '--unscramble')
    : undefined;
  return ids.map((text) => {
    const id = parseId(text, from);
    if (scrambler === undefined) return formatId(id, to);
    return flags.scramble === true
      ? scrambler.format(id, to)
      : formatId(scrambler.unscramble(id), to);
  });
}

/** `vesta format <ids...>`: one id per line, in another form. */
export function formatCommand(): Command {
  const forms = ID_FORMS.join(', ');
  const command = new Command('format')
    .argument('<ids...>', 'ids, in the form --from names')
    .option('--from <form>', `form of the ids given: ${forms}`, 'decimal')
    .option('--to <form>', `form to print: ${forms}`, 'base32')
    .option('--scramble', 'print the ids scrambled with the key (e.g. coupon codes)')
    .option('--unscramble', 'the ids given are scrambled: print the ids behind them');
  return addSchemaFlags(command, { scrambleKey: SCRAMBLE_KEY }).action(
    (ids: string[], flags: FormatFlags) => {
      try {
        process.stdout.write(`${convertIds(ids, flags).join('\n')}\n`);
      } catch (error) {
        reportCommandError('format', error);
      }
    },
  );
}
