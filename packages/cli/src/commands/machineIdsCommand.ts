import { Command, Option } from 'commander';
import { coordinatorHelp, coordinatorOf, coordinatorSchemes } from './coordinatorOf.js';
import type {
  LeaseAllocation as AllocationRow,
  LeaseTenure as TenureRow,
  MachineIdAdmin,
} from '@vesta/lease';
import { reportCommandError } from './reportCommandError.js';
import { MACHINE_ID, wholeFlag } from './wholeFlag.js';

function row(a: AllocationRow): string[] {
  return [
    String(a.machineId),
    a.owner ?? '(released)',
    a.alive ? 'yes' : 'no',
    a.markMs === 0 ? '-' : new Date(a.markMs).toISOString(),
    `${(a.ageMs / 1000).toFixed(1)}s`,
  ];
}

function tenureRow(t: TenureRow): string[] {
  return [
    String(t.machineId),
    t.holder,
    new Date(t.fromMs).toISOString(),
    t.ended === 'held' ? '-' : new Date(t.toMs).toISOString(),
    t.ended,
  ];
}

/** Control, line-breaking and bidi characters: a cell holding one is printed as JSON text. */
const UNPRINTABLE = /[\p{Cc}\p{Zl}\p{Zp}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** A cell as printed: a key of the store (a holder's, anyone's) cannot forge rows or colours. */
function printable(cell: string): string {
  return UNPRINTABLE.test(cell) ? JSON.stringify(cell) : cell;
}

function table(rows: readonly (readonly string[])[]): string {
  const cells = rows.map((r) => r.map(printable));
  const widths: number[] = [];
  for (const r of cells)
    r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return cells
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The help of `init`: what it does, and when it must not be used. */
const INIT_HELP = `
Declares the coordinator's store new, so that the first start answers at once: the allocation
era is created open, in one atomic step, only when the store holds no history at all (no era, no
allocation, no key mapping, no live holder); otherwise it is refused with COORDINATOR_NOT_NEW,
naming what it found, and nothing is written.

Only for a store you know is new. A store that lost its data (Redis flushed, ZooKeeper without
its data directory, a table truncated, etcd restored without the keys) looks just as empty, while
instances may still issue ids of the lost data until their fence: a start waits that out
(eraWaitMs) by itself; init would skip the wait and could let two instances issue the same ids.`;

/** `vesta machine-ids`: the operators' view of machine-id allocations in any coordinator. */
export function machineIdsCommand(): Command {
  const name = 'machine-ids';
  const withConnection = (command: Command) =>
    command
      .addHelpText('after', coordinatorHelp())
      .addOption(
        new Option(
          '--coordinator <url>',
          `the coordinator: ${coordinatorSchemes()} (URL forms and examples below)`,
        )
          .env('VESTA_COORDINATOR')
          .makeOptionMandatory(),
      );
  // An action: its admin (built when asked for), its arguments and flags; errors reported.
  const withAdmin =
    <A extends unknown[]>(
      work: (admin: () => Promise<MachineIdAdmin>, ...args: A) => Promise<void>,
    ) =>
    async (...args: A): Promise<void> => {
      try {
        const { coordinator } = args[args.length - 2] as { coordinator: string };
        await work(async () => (await coordinatorOf(coordinator)).admin(coordinator), ...args);
      } catch (error) {
        reportCommandError(name, error);
      }
    };
  const list = withConnection(
    new Command('list').description(
      'list the machine-id allocations: id, owner, alive, last mark, age',
    ),
  )
    .option('--json', 'one JSON object per line')
    .action(
      withAdmin(async (admin, flags: { json?: boolean }) => {
        const rows = await (await admin()).list();
        if (flags.json === true) for (const a of rows) console.log(JSON.stringify(a));
        else console.log(table([['ID', 'OWNER', 'ALIVE', 'LAST MARK', 'AGE'], ...rows.map(row)]));
      }),
    );
  const release = withConnection(
    new Command('release')
      .description('release a machine id by hand: its owner is cleared, its time mark kept')
      .argument('<machineId>', 'the machine id (0-1023)'),
  )
    .option('--force', 'also take it from a live instance (which then stops issuing for good)')
    .action(
      withAdmin(async (admin, machineId: string, flags: { force?: boolean }) => {
        const id = wholeFlag('machine id', machineId, MACHINE_ID, 'INVALID_ARGUMENT');
        const released = await (await admin()).release(id, { force: flags.force === true });
        console.log(
          `released machine id ${released.machineId} (owner ${released.owner ?? 'none'}${released.alive ? ', was alive' : ''})`,
        );
      }),
    );
  const init = withConnection(
    new Command('init')
      .description(
        'declare a store new (only one you know is new): its allocation era is created open, so the first start does not wait',
      )
      .addHelpText('after', INIT_HELP),
  ).action(
    withAdmin(async (admin) => {
      const done = await (await admin()).init();
      console.log(
        `declared ${done.where} new: allocation era ${done.era} created open; the first start takes a machine id at once`,
      );
    }),
  );
  const history = withConnection(
    new Command('history').description(
      "list the lease journal's tenures: id, holder, from, to, and how each ended (released, reclaimed after its holder died, or held)",
    ),
  )
    .option('--machine-id <n>', 'only this machine id')
    .option('--json', 'one JSON object per line')
    .action(
      withAdmin(async (admin, flags: { json?: boolean; machineId?: string }) => {
        const only = wholeFlag(
          '--machine-id',
          flags.machineId,
          MACHINE_ID.optional(),
          'INVALID_ARGUMENT',
        );
        const { tenures, covered } = await (
          await admin()
        ).history(only === undefined ? {} : { machineId: only });
        if (flags.json === true) {
          for (const t of tenures) console.log(JSON.stringify(t));
          return;
        }
        console.log(table([['ID', 'HOLDER', 'FROM', 'TO', 'ENDED'], ...tenures.map(tenureRow)]));
        console.error(
          covered.fromMs === undefined
            ? 'the lease journal is empty'
            : `the lease journal covers ${new Date(covered.fromMs).toISOString()} to ${new Date(covered.toMs).toISOString()}`,
        );
      }),
    );
  return new Command(name)
    .addHelpText('after', coordinatorHelp())
    .addCommand(list)
    .addCommand(release)
    .addCommand(init)
    .addCommand(history);
}
