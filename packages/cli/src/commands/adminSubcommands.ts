import { VestaError } from '@vesta/core';
import { Command } from 'commander';
import type { AllocationRow, MachineIdAdmin } from '../coordinators/Coordinator.js';
import { reportCommandError } from './reportCommandError.js';

function row(a: AllocationRow): string[] {
  return [
    String(a.machineId),
    a.owner ?? '(released)',
    a.alive ? 'yes' : 'no',
    a.markMs === 0 ? '-' : new Date(a.markMs).toISOString(),
    `${(a.ageMs / 1000).toFixed(1)}s`,
  ];
}

function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * The `list` and `release` subcommands of an operators' command (`vesta machine-ids`, `vesta
 * zookeeper`): `withConnection` adds the flags that name the coordinator, `adminOf` builds its
 * admin from them, errors are reported as `vesta <name>: CODE: reason`.
 */
export function adminSubcommands<Flags extends object>(
  name: string,
  withConnection: (command: Command) => Command,
  adminOf: (flags: Flags, subcommand: 'list' | 'release') => MachineIdAdmin,
): [Command, Command] {
  const list = withConnection(
    new Command('list').description(
      'list the machine-id allocations: id, owner, alive, last mark, age',
    ),
  )
    .option('--json', 'one JSON object per line')
    .action(async (flags: Flags & { json?: boolean }) => {
      try {
        const rows = await adminOf(flags, 'list').list();
        if (flags.json === true) {
          for (const a of rows) console.log(JSON.stringify(a));
        } else {
          console.log(table([['ID', 'OWNER', 'ALIVE', 'LAST MARK', 'AGE'], ...rows.map(row)]));
        }
      } catch (error) {
        reportCommandError(name, error);
      }
    });
  const release = withConnection(
    new Command('release')
      .description('release a machine id by hand: its owner is cleared, its time mark kept')
      .argument('<machineId>', 'the machine id (0-1023)'),
  )
    .option('--force', 'also take it from a live instance (which then stops issuing for good)')
    .action(async (machineId: string, flags: Flags & { force?: boolean }) => {
      try {
        if (!/^[0-9]{1,4}$/.test(machineId)) {
          throw new VestaError(
            'INVALID_ARGUMENT',
            `machine id must be a whole number, got ${JSON.stringify(machineId)}`,
          );
        }
        const released = await adminOf(flags, 'release').release(Number(machineId), {
          force: flags.force === true,
        });
        console.log(
          `released machine id ${released.machineId} (owner ${released.owner ?? 'none'}${released.alive ? ', was alive' : ''})`,
        );
      } catch (error) {
        reportCommandError(name, error);
      }
    });
  return [list, release];
}
