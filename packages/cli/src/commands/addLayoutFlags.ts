import { Option, type Command } from 'commander';

/** What the offline commands say in the help of their layout flags. */
export interface LayoutFlagsHelp {
  /** What the layout is of: `'id'` or `'ids'`. */
  readonly of: string;
  /** What the epoch is for, after "epoch": `' the ids were issued with'`, `', for --date'`. */
  readonly epochFor: string;
  /** Whether to add `--type` (the Vesta type's layout without `--layout`). */
  readonly typed: boolean;
}

/**
 * Adds the layout flags of the offline commands (`decode`, `make`, `bounds`, `audit`): `--type` when
 * `typed`, `--layout` (env `VESTA_LAYOUT`) and `--epoch` (env `VESTA_EPOCH`), read by
 * `layoutAndEpoch` and `converterOf`.
 */
export function addLayoutFlags(command: Command, help: LayoutFlagsHelp): Command {
  if (help.typed) {
    command.option(
      '--type <type>',
      "'max-peak' (0) or 'min-granularity' (1) (default: max-peak, or the --layout preset's)",
    );
  }
  return command
    .addOption(
      new Option(
        '--layout <layout>',
        `layout of the ${help.of}: a preset (leaf, twitter, sonyflake, ...), uid-generator:T,W,S or a JSON spec (default: ${help.typed ? 'the --type Vesta layout' : 'the Vesta layouts'})`,
      ).env('VESTA_LAYOUT'),
    )
    .addOption(
      new Option(
        '--epoch <date>',
        `epoch${help.epochFor}: ISO-8601 or Unix ms (default 2025-01-01, or the --layout preset's)`,
      ).env('VESTA_EPOCH'),
    );
}
