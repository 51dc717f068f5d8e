import { createRequire } from 'node:module';
import { Command } from 'commander';

type Subcommand = readonly [description: string, load: () => Promise<Command>];

/** The subcommands, in help's order, each loaded only when it runs or its help is asked for. */
const COMMANDS: Readonly<Record<string, Subcommand>> = {
  rest: [
    'run the REST id server (genMethod 2, machine id 924-1023)',
    async () => (await import('./commands/restCommand.js')).restCommand(),
  ],
  server: [
    'run the central TCP id server (genMethod 1, machine id 924-1023)',
    async () => (await import('./commands/serverCommand.js')).serverCommand(),
  ],
  decode: [
    'decode ids offline: machine, seq, time, genMethod, type, version and date (one JSON line per id)',
    async () => (await import('./commands/decodeCommand.js')).decodeCommand(),
  ],
  make: [
    'make the id of given fields offline (prints it as a decimal string unless --format says otherwise)',
    async () => (await import('./commands/makeCommand.js')).makeCommand(),
  ],
  format: [
    'rewrite ids in another form offline (hex, base32 and base62 sort as the ids do); one per line',
    async () => (await import('./commands/formatCommand.js')).formatCommand(),
  ],
  bounds: [
    'the smallest and largest id and UUIDv7 of a time window, offline, for WHERE id BETWEEN (JSON, or --sql)',
    async () => (await import('./commands/boundsCommand.js')).boundsCommand(),
  ],
  audit: [
    'check a column of ids (file, stdin or a PostgreSQL query) for duplicates, future times, machine ids out of range, order breaks; JSON report, exit 1 on a duplicate',
    async () => (await import('./commands/auditCommand.js')).auditCommand(),
  ],
  'machine-ids': [
    'machine-id allocations in a coordinator (ZooKeeper, Redis, PostgreSQL, etcd): list them, release one by hand, declare a store new (init), read its history',
    async () => (await import('./commands/machineIdsCommand.js')).machineIdsCommand(),
  ],
  segment: [
    "segment mode's keys in a PostgreSQL or Redis store (@vesta/segment): list them, create one, set a step",
    async () => (await import('./commands/segmentCommand.js')).segmentCommand(),
  ],
};

/** The subcommand `argv` runs, or asks help for. */
function commandNamed(argv: readonly string[]): string | undefined {
  const words = argv.slice(2).filter((arg) => !arg.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/** Commander's usage errors read as every refusal does: `vesta <command>: INVALID_ARGUMENT: ...`. */
function codeUsageErrors(command: Command, name: string): void {
  command.showHelpAfterError(`(run "${name} --help" for usage)`).configureOutput({
    outputError: (text, write) => write(text.replace(/^error: /, `${name}: INVALID_ARGUMENT: `)),
  });
  for (const sub of command.commands) codeUsageErrors(sub, `${name} ${sub.name()}`);
}

/** The `vesta` command line for `argv`: only the subcommand it names is built in full. */
export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command('vesta')
    .description('Vesta ids: unique, time-ordered, reversible 64-bit ids')
    .version(
      (createRequire(import.meta.url)('../package.json') as { version: string }).version,
      '-V, --version',
      'print the version of vesta',
    );
  const named = commandNamed(argv);
  // The help of a command taking --coordinator lists the installed coordinators: only it loads them.
  const help = argv.some((arg) => arg === '-h' || arg === '--help') || argv[2] === 'help';
  if (help && ['rest', 'server', 'machine-ids'].includes(named ?? '')) {
    await (await import('./commands/coordinatorOf.js')).loadCoordinatorHelp();
  }
  for (const [name, [description, load]] of Object.entries(COMMANDS)) {
    const command = name === named ? await load() : new Command(name);
    program.addCommand(command.description(description));
  }
  // Global options only before the subcommand: `vesta make --version 1` is make's version bit.
  program.enablePositionalOptions();
  codeUsageErrors(program, 'vesta');
  return program;
}
