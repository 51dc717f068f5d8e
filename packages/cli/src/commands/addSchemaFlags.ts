import { Option, type Command } from 'commander';
import type { z } from 'zod';

/** What commander hands an action: each flag's text, a default's value, or a switch. */
export type Flags = Readonly<Record<string, string | number | boolean | undefined>>;

/** A flag's text; undefined when absent (or a switch). */
export const flagText = (value: Flags[string]): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** A flag, declared by the option schema it feeds (its description and default) or by its help. */
export interface SchemaFlag {
  /** The option schema it feeds; none for a flag of the command line's own. */
  readonly schema?: z.ZodType;
  /** The value's name in help (`--port <port>`); none for a switch. */
  readonly arg?: string;
  /** Its help (after the schema's description, if any). */
  readonly help?: string;
  /** The values it takes, when a fixed list. */
  readonly choices?: readonly string[];
  /** Mirrored by `VESTA_<NAME>` unless false. */
  readonly env?: false;
}

function defaultOf(schema: z.ZodType): unknown {
  const def = schema._zod.def as { type: string; defaultValue?: unknown };
  return def.type === 'default' ? def.defaultValue : undefined;
}

/** Adds a flag per key: `markWindowMs` is `--mark-window-ms`, env `VESTA_MARK_WINDOW_MS`. */
export function addSchemaFlags(
  command: Command,
  flags: Readonly<Record<string, SchemaFlag>>,
  env = true,
): Command {
  for (const [key, flag] of Object.entries(flags)) {
    const name = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    const help = [flag.schema?.description, flag.help].filter((s) => s !== undefined).join('; ');
    const option = new Option(`--${name}${flag.arg === undefined ? '' : ` <${flag.arg}>`}`, help);
    const fallback = flag.schema === undefined ? undefined : defaultOf(flag.schema);
    if (fallback !== undefined) option.default(fallback);
    if (flag.choices !== undefined) option.choices(flag.choices);
    if (env && flag.env !== false) option.env(`VESTA_${name.replaceAll('-', '_').toUpperCase()}`);
    command.addOption(option);
  }
  return command;
}
