import { hostname } from 'node:os';
import {
  StatefulSetOrdinalMachineIdProvider,
  VestaError,
  type Logger,
  type MachineIdProvider,
} from '@vesta/core';
import { Option, type Command } from 'commander';
import type { LazyMachineIdModule } from '../coordinators/Coordinator.js';
import { coordinatorFor } from '../coordinators/coordinatorFor.js';
import { coordinatorSchemes } from '../coordinators/coordinatorHelp.js';
import { wholeFlag } from './wholeFlag.js';

/** The machine-id flags every server command shares (and the service flags they read). */
export interface MachineIdFlags {
  machineId?: string;
  coordinator?: string;
  coordinatorKey?: string;
  machineIdFrom?: string;
  machineIdOffset?: string;
  /** The command's --port: part of the default coordinator key (host:port). */
  port?: string | number;
  /** The command's --state-dir: where the lease is cached for a start while the coordinator is down. */
  stateDir?: string | boolean;
}

/**
 * Adds --machine-id, --coordinator, --coordinator-key, --machine-id-from and --machine-id-offset
 * (each mirrored by an environment variable).
 */
export function addMachineIdOptions(command: Command): Command {
  command
    .addOption(
      new Option(
        '--machine-id <id>',
        'machine id of this server (924-1023; with a non-Vesta --layout, the top tenth of its machine field)',
      ).env('VESTA_MACHINE_ID'),
    )
    .addOption(
      new Option(
        '--coordinator <url>',
        `lease the machine id from a coordinator: ${coordinatorSchemes()} (URL forms and examples below)`,
      ).env('VESTA_COORDINATOR'),
    )
    .addOption(
      new Option(
        '--coordinator-key <key>',
        "this server's identity in the coordinator: the same key gets the same id back (default host:port)",
      ).env('VESTA_COORDINATOR_KEY'),
    )
    .addOption(
      new Option(
        '--machine-id-from <source>',
        'derive the machine id: statefulset (the ordinal of the pod name, e.g. ids-2)',
      )
        .choices(['statefulset'])
        .env('VESTA_MACHINE_ID_FROM'),
    )
    .addOption(
      new Option(
        '--machine-id-offset <n>',
        'with --machine-id-from statefulset: added to the ordinal (default 924, the first server id)',
      ).env('VESTA_MACHINE_ID_OFFSET'),
    );
  return command;
}

/**
 * Where a server's machine id comes from: a fixed id, a provider (the StatefulSet ordinal), or a
 * coordinator's module (`--coordinator`), its package imported and the module built on `load()`.
 */
export type MachineIdSource =
  | { readonly machineId: number }
  | { readonly machineIdProvider: MachineIdProvider }
  | { readonly coordinatorModule: LazyMachineIdModule };

/** The key a server leases under: the given one, else `host:port`. */
function serverKey(given: string | undefined, port: MachineIdFlags['port']): string {
  return given ?? (port === undefined ? hostname() : `${hostname()}:${String(port)}`);
}

/** The key a server leases its id under from --coordinator: --coordinator-key, else host:port. */
export function coordinatorKey(flags: MachineIdFlags): string {
  return serverKey(flags.coordinatorKey, flags.port);
}

/**
 * Where the machine id comes from: a coordinator's module (--coordinator), the StatefulSet
 * ordinal (--machine-id-from statefulset), else the static id (or
 * `defaultMachineId`, with `onDefault` told). Throws INVALID_OPTIONS on bad or conflicting flags.
 */
export function machineIdFromFlags(
  flags: MachineIdFlags,
  defaultMachineId: number,
  onDefault: (machineId: number) => void,
  logger?: Logger,
): MachineIdSource {
  const sources = [
    ['--machine-id', flags.machineId],
    ['--coordinator', flags.coordinator],
    ['--machine-id-from', flags.machineIdFrom],
  ].filter(([, value]) => value !== undefined);
  if (sources.length > 1) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `give one machine-id source, not ${sources.map(([name]) => name).join(' and ')}`,
    );
  }
  if (flags.coordinator === undefined && flags.coordinatorKey !== undefined) {
    throw new VestaError('INVALID_OPTIONS', '--coordinator-key needs --coordinator');
  }
  if (flags.machineIdFrom === undefined && flags.machineIdOffset !== undefined) {
    throw new VestaError('INVALID_OPTIONS', '--machine-id-offset needs --machine-id-from');
  }
  const stateDir =
    typeof flags.stateDir === 'string' && flags.stateDir !== '' ? flags.stateDir : undefined;
  if (flags.coordinator !== undefined) {
    const coordinatorModule = coordinatorFor(flags.coordinator).machineIdModule(flags.coordinator, {
      key: coordinatorKey(flags),
      keyGiven: flags.coordinatorKey !== undefined,
      stateDir,
      logger,
    });
    return { coordinatorModule };
  }
  if (flags.machineIdFrom !== undefined) {
    const offset =
      flags.machineIdOffset === undefined
        ? {}
        : { offset: wholeFlag('--machine-id-offset', flags.machineIdOffset) };
    return { machineIdProvider: new StatefulSetOrdinalMachineIdProvider(offset) };
  }
  if (flags.machineId === undefined) {
    onDefault(defaultMachineId);
    return { machineId: defaultMachineId };
  }
  return { machineId: wholeFlag('--machine-id', flags.machineId) };
}
