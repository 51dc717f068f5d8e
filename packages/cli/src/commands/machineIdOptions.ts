import { VestaError, type MachineIdProvider } from '@vesta/core';
import { Option, type Command } from 'commander';

/** The machine-id flags every server command shares. */
export interface MachineIdFlags {
  machineId?: string;
  zookeeper?: string;
  zkRoot?: string;
}

/** Adds --machine-id, --zookeeper and --zk-root (each mirrored by an environment variable). */
export function addMachineIdOptions(command: Command): Command {
  return command
    .addOption(new Option('--machine-id <id>', 'machine id of this server (924-1023)').env('VESTA_MACHINE_ID'))
    .addOption(
      new Option('--zookeeper <hosts>', 'lease the machine id from ZooKeeper (host:port[,host:port])').env('VESTA_ZOOKEEPER'),
    )
    .addOption(new Option('--zk-root <path>', 'ZooKeeper path prefix of this fleet').env('VESTA_ZK_ROOT'));
}

/**
 * The machine-id part of the service options: a provider when --zookeeper is given, else the
 * static id (or `defaultMachineId`, with `onDefault` told). Throws INVALID_OPTIONS on bad flags.
 */
export function machineIdFromFlags(
  flags: MachineIdFlags,
  defaultMachineId: number,
  onDefault: (machineId: number) => void,
): { machineId: number } | { machineIdProvider: MachineIdProvider } {
  if (flags.zookeeper !== undefined) {
    if (flags.machineId !== undefined) {
      throw new VestaError('INVALID_OPTIONS', 'give either --machine-id or --zookeeper, not both');
    }
    throw new VestaError('INVALID_OPTIONS', '--zookeeper is not available yet');
  }
  if (flags.machineId === undefined) {
    onDefault(defaultMachineId);
    return { machineId: defaultMachineId };
  }
  if (!/^[0-9]{1,4}$/.test(flags.machineId)) {
    throw new VestaError('INVALID_OPTIONS', `--machine-id must be a whole number, got ${JSON.stringify(flags.machineId)}`);
  }
  return { machineId: Number(flags.machineId) };
}
