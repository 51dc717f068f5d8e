import cluster from 'node:cluster';
import { VestaError } from '@vesta/core';
import { checkOption } from '@vesta/core/kit';
import type { zooKeeperMachineIdOptions } from '@vesta/zookeeper';
import { Option, type Command } from 'commander';

/** The deprecated ZooKeeper flags of the server commands and of `vesta zookeeper`. */
export interface ZooKeeperFlags {
  zookeeper?: string;
  zkRoot?: string;
  zkKey?: string;
}

/** The root option that --zk-root stands for: `@vesta/zookeeper`'s declaration of it. */
type RootOption = typeof zooKeeperMachineIdOptions.schema.shape.root;

/**
 * The ZooKeeper provider's declaration of `root`, or undefined when `@vesta/zookeeper` is not
 * installed. It is an optional peer of the CLI (a plain install brings no coordinator client),
 * so it is imported here and not statically; and only when a deprecated flag is given or help is
 * shown, since the import costs every other start about 0.1 s of CPU. A missing package makes
 * the deprecated flags PACKAGE_MISSING when given, as `--coordinator zookeeper://` is.
 */
async function rootOption(): Promise<RootOption | undefined> {
  const zooKeeper = await import('@vesta/zookeeper').catch((error: unknown) => {
    if ((error as { code?: unknown } | null)?.code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  });
  return zooKeeper?.zooKeeperMachineIdOptions.schema.shape.root;
}

/** The help of --zk-root, with the provider's default root when it is known. */
function zkRootHelp(root: RootOption | undefined): string {
  return `deprecated, the path of the --coordinator zookeeper:// URL: ZooKeeper path prefix of the fleet (default ${root?.def.defaultValue ?? "@vesta/zookeeper's root"})`;
}

/** The flag and environment variable of each deprecated ZooKeeper flag. */
const NAMES = {
  zookeeper: ['--zookeeper', 'VESTA_ZOOKEEPER'],
  zkRoot: ['--zk-root', 'VESTA_ZK_ROOT'],
  zkKey: ['--zk-key', 'VESTA_ZK_KEY'],
} as const;

/** Where commander took a flag's value from: the command line, the environment, or neither. */
export type FlagSource = (key: keyof ZooKeeperFlags) => 'cli' | 'env' | undefined;

/** The {@link FlagSource} of a command's parsed options. */
export function flagSourceOf(command: Command): FlagSource {
  return (key) => {
    const source = command.getOptionValueSource(key) as string | undefined;
    return source === 'cli' || source === 'env' ? source : undefined;
  };
}

/**
 * Adds --zookeeper, --zk-root and --zk-key (VESTA_ZOOKEEPER, VESTA_ZK_ROOT, VESTA_ZK_KEY): kept
 * for one release, each read as the --coordinator zookeeper:// URL (and --coordinator-key) it
 * stands for. `required` makes --zookeeper mandatory (`vesta zookeeper`).
 */
export function addZooKeeperFlags(command: Command, required = false): Command {
  const zookeeper = new Option(
    '--zookeeper <hosts>',
    'deprecated, use --coordinator zookeeper://host:port[,host:port][/root]: ZooKeeper servers (host:port[,host:port])',
  ).env('VESTA_ZOOKEEPER');
  return command
    .addOption(required ? zookeeper.makeOptionMandatory() : zookeeper)
    .addOption(new Option('--zk-root <path>', zkRootHelp(undefined)).env('VESTA_ZK_ROOT'));
}

/**
 * Names the provider's default root in the help of every --zk-root under `command` (the help
 * is about to be shown): imports `@vesta/zookeeper`, which {@link addZooKeeperFlags} leaves out.
 */
export async function describeZooKeeperRoot(command: Command): Promise<void> {
  const options = zkRootOptions(command);
  if (options.length === 0) return;
  const help = zkRootHelp(await rootOption());
  for (const option of options) option.description = help;
}

/** The --zk-root options of `command` and of the commands below it. */
function zkRootOptions(command: Command): Option[] {
  return [
    ...command.options.filter((option) => option.long === '--zk-root'),
    ...command.commands.flatMap(zkRootOptions),
  ];
}

/** Adds --zk-key (the server commands only). */
export function addZooKeeperKeyFlag(command: Command): Command {
  return command.addOption(
    new Option(
      '--zk-key <key>',
      "deprecated, use --coordinator-key: this server's identity in ZooKeeper (default host:port)",
    ).env('VESTA_ZK_KEY'),
  );
}

/**
 * The `zookeeper://` URL the deprecated flags stand for; --zk-root is checked by the provider's
 * declaration of `root` (INVALID_OPTIONS naming the flag), since a relative one would not read
 * as the URL's path.
 */
export async function zooKeeperUrl(flags: ZooKeeperFlags & { zookeeper: string }): Promise<string> {
  const root = await rootOption();
  if (root === undefined) {
    throw new VestaError(
      'PACKAGE_MISSING',
      '--zookeeper needs the package @vesta/zookeeper, which is not installed: npm install @vesta/zookeeper',
      { details: { package: '@vesta/zookeeper' } },
    );
  }
  const path = flags.zkRoot === undefined ? '' : checkOption(root, '--zk-root', flags.zkRoot);
  return `zookeeper://${flags.zookeeper}${path}`;
}

/**
 * The one-line deprecation of the ZooKeeper flags given (named as given: a flag or its variable),
 * with the replacement spelled out, or undefined when none was given.
 */
export function zooKeeperDeprecation(
  flags: ZooKeeperFlags,
  sourceOf: FlagSource,
  replacement: { flags: string; env: string },
): string | undefined {
  const given = (Object.keys(NAMES) as (keyof ZooKeeperFlags)[]).filter(
    (key) => flags[key] !== undefined,
  );
  if (given.length === 0) return undefined;
  const names = given.map((key) => NAMES[key][sourceOf(key) === 'env' ? 1 : 0]);
  const allEnv = given.every((key) => sourceOf(key) === 'env');
  const listed =
    names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return (
    `vesta: ${listed} ${names.length === 1 ? 'is' : 'are'} deprecated and will go in the next ` +
    `release; use ${allEnv ? replacement.env : replacement.flags}`
  );
}

/**
 * The server flags with the deprecated ZooKeeper ones read as the --coordinator URL and
 * --coordinator-key they stand for, so that both take one path (the same worker count, lease
 * cache and key); tells `warn` (stderr) the deprecation once: in the primary, not in every
 * REST worker. Refuses them beside another machine-id source with INVALID_OPTIONS.
 */
export async function withoutZooKeeperFlags<
  F extends ZooKeeperFlags & {
    coordinator?: string;
    coordinatorKey?: string;
    machineId?: string;
    machineIdFrom?: string;
  },
>(
  flags: F,
  sourceOf: FlagSource,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<Omit<F, keyof ZooKeeperFlags>> {
  const { zookeeper, zkRoot, zkKey, ...rest } = flags;
  if (zookeeper === undefined) {
    if (zkRoot !== undefined || zkKey !== undefined) {
      throw new VestaError('INVALID_OPTIONS', '--zk-root and --zk-key need --zookeeper');
    }
    return rest;
  }
  const others = [
    ['--machine-id', flags.machineId],
    ['--coordinator', flags.coordinator ?? flags.coordinatorKey],
    ['--machine-id-from', flags.machineIdFrom],
  ].filter(([, value]) => value !== undefined);
  if (others.length > 0) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `give one machine-id source, not ${others.map(([name]) => name).join(' and ')} and --zookeeper`,
    );
  }
  const url = await zooKeeperUrl({ zookeeper, ...(zkRoot === undefined ? {} : { zkRoot }) });
  const line = zooKeeperDeprecation(flags, sourceOf, {
    flags: `--coordinator ${url}${zkKey === undefined ? '' : ` --coordinator-key ${zkKey}`}`,
    env: `VESTA_COORDINATOR=${url}${zkKey === undefined ? '' : ` VESTA_COORDINATOR_KEY=${zkKey}`}`,
  });
  if (line !== undefined && cluster.isPrimary) warn(line);
  return { ...rest, coordinator: url, ...(zkKey === undefined ? {} : { coordinatorKey: zkKey }) };
}
