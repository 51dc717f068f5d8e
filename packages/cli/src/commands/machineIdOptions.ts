import { hostname } from 'node:os';
import { VestaError, type Logger, type MachineIdProvider } from '@vesta/core';
import { ZooKeeperMachineIdProvider } from '@vesta/zookeeper';
import { Option, type Command } from 'commander';

/** The machine-id flags every server command shares (and the service flags they read). */
export interface MachineIdFlags {
  machineId?: string;
  zookeeper?: string;
  zkRoot?: string;
  zkKey?: string;
  /** The command's --port: part of the default ZooKeeper key (host:port). */
  port?: string | number;
  /** The command's --state-dir: where the ZooKeeper lease is cached for a start while it is down. */
  stateDir?: string | boolean;
}

/** Adds --machine-id, --zookeeper, --zk-root and --zk-key (each mirrored by an environment variable). */
export function addMachineIdOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--machine-id <id>',
        'machine id of this server (924-1023; with a non-Vesta --layout, the top tenth of its machine field)',
      ).env('VESTA_MACHINE_ID'),
    )
    .addOption(
      new Option(
        '--zookeeper <hosts>',
        'lease the machine id from ZooKeeper (host:port[,host:port])',
      ).env('VESTA_ZOOKEEPER'),
    )
    .addOption(
      new Option('--zk-root <path>', 'ZooKeeper path prefix of this fleet (default /vesta)').env(
        'VESTA_ZK_ROOT',
      ),
    )
    .addOption(
      new Option(
        '--zk-key <key>',
        "this server's identity in ZooKeeper: the same key gets the same id back (default host:port)",
      ).env('VESTA_ZK_KEY'),
    );
}

/** This server's identity in ZooKeeper: --zk-key, else host:port (or the host name without a port). */
export function zooKeeperKey(flags: MachineIdFlags): string {
  return (
    flags.zkKey ?? (flags.port === undefined ? hostname() : `${hostname()}:${String(flags.port)}`)
  );
}

/**
 * The machine-id part of the service options: a ZooKeeper provider when --zookeeper is given,
 * else the static id (or `defaultMachineId`, with `onDefault` told). Throws INVALID_OPTIONS on
 * bad flags.
 */
export function machineIdFromFlags(
  flags: MachineIdFlags,
  defaultMachineId: number,
  onDefault: (machineId: number) => void,
  logger?: Logger,
): { machineId: number } | { machineIdProvider: MachineIdProvider } {
  if (flags.zookeeper !== undefined) {
    if (flags.machineId !== undefined) {
      throw new VestaError('INVALID_OPTIONS', 'give either --machine-id or --zookeeper, not both');
    }
    const key = zooKeeperKey(flags);
    const provider = new ZooKeeperMachineIdProvider({
      connect: flags.zookeeper,
      key,
      ...(flags.zkRoot === undefined ? {} : { root: flags.zkRoot }),
      ...(typeof flags.stateDir === 'string' && flags.stateDir !== ''
        ? { stateDir: flags.stateDir }
        : {}),
      ...(logger === undefined ? {} : { logger }),
    });
    return { machineIdProvider: provider };
  }
  if (flags.zkRoot !== undefined || flags.zkKey !== undefined) {
    throw new VestaError('INVALID_OPTIONS', '--zk-root and --zk-key need --zookeeper');
  }
  if (flags.machineId === undefined) {
    onDefault(defaultMachineId);
    return { machineId: defaultMachineId };
  }
  // Up to 9 digits: sonyflake's and uid-generator's machine fields go past 1023; the service checks the range.
  if (!/^[0-9]{1,9}$/.test(flags.machineId)) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--machine-id must be a whole number, got ${JSON.stringify(flags.machineId)}`,
    );
  }
  return { machineId: Number(flags.machineId) };
}
