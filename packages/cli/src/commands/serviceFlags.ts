import { hostname } from 'node:os';
import {
  parseEpoch,
  StatefulSetOrdinalMachineIdProvider,
  type Logger,
  type MachineIdProvider,
} from '@vesta/core';
import {
  checkOption,
  DEFAULT_STATE_DIR,
  idServiceOptions,
  nonEmptyString,
  parseIdType,
  resolveLayoutOption,
  resolveStateDir,
  serverOptionsShape,
  wholeNumber,
} from '@vesta/core/kit';
import type { Command } from 'commander';
import type { ContainerModule } from 'inversify';
import { z } from 'zod';
import { addSchemaFlags, flagText, type Flags, type SchemaFlag } from './addSchemaFlags.js';
import { coordinatorOf, coordinatorSchemes } from './coordinatorOf.js';
import { parseEpochFlag, parseLayoutFlag } from './layoutFlags.js';
import { invalidFlag, wholeFlag } from './wholeFlag.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The defaults that differ between `vesta rest` and `vesta server`. */
export interface ServiceFlagDefaults {
  readonly port: number;
  readonly maxBatch: number;
}

const SERVICE = idServiceOptions.schema.shape;

/** The flags the server commands share, from the options they feed, each with a VESTA_* env. */
function serviceFlags(defaults: ServiceFlagDefaults) {
  const server = serverOptionsShape(defaults.port);
  return {
    host: { schema: server.host, arg: 'host' },
    port: { schema: server.port, arg: 'port' },
    type: { schema: SERVICE.type, arg: 'type' },
    layout: { schema: SERVICE.layout, arg: 'layout' },
    epoch: { schema: SERVICE.epoch, arg: 'date' },
    stateDir: { schema: server.stateDir, arg: 'dir' },
    noStateDir: {
      help: 'keep the high-water mark in memory only (not safe across clock steps)',
    },
    authToken: { schema: server.authToken, arg: 'token', help: 'prefer the env variable' },
    maxBatch: {
      schema: wholeNumber(1, 1_000_000)
        .default(defaults.maxBatch)
        .describe('largest count of one batch request'),
      arg: 'count',
    },
    markWindowMs: { schema: SERVICE.markWindowMs, arg: 'ms' },
    adoptLegacyMark: { schema: SERVICE.adoptLegacyMark, arg: 'epoch' },
    generators: {
      help: "named generators, comma-separated (orders,users): asked for with REST's ?key= or the TCP client's generator(name); they share this server's generator, so ids are unique across names",
      arg: 'names',
    },
    generatorsOnDemand: {
      help: 'create an unknown generator name on first use (up to 1000 names) instead of UNKNOWN_GENERATOR',
    },
    logLevel: {
      schema: z
        .enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` })
        .default('info')
        .describe('log level'),
      arg: 'level',
      choices: LOG_LEVELS,
    },
    machineId: {
      schema: SERVICE.machineId,
      arg: 'id',
      help: '924-1023; with a non-Vesta --layout, the top tenth of its machine field',
    },
    coordinator: {
      help: `lease the machine id from a coordinator: ${coordinatorSchemes()} (URL forms and examples below)`,
      arg: 'url',
    },
    coordinatorKey: {
      help: "this server's identity in the coordinator: the same key gets the same id back (default host:port)",
      arg: 'key',
    },
    machineIdFrom: {
      help: 'derive the machine id: statefulset (the ordinal of the pod name, e.g. ids-2)',
      arg: 'source',
      choices: ['statefulset'],
    },
    machineIdOffset: {
      help: 'with --machine-id-from statefulset: added to the ordinal (default 924, the first server id)',
      arg: 'n',
    },
  } satisfies Record<string, SchemaFlag>;
}

/** Adds the flags `vesta rest` and `vesta server` share; {@link resolveServiceFlags} reads them. */
export function addServiceOptions(command: Command, defaults: ServiceFlagDefaults): Command {
  return addSchemaFlags(command, serviceFlags(defaults));
}

/** Validates the shared flags once; INVALID_OPTIONS naming the flag. */
export function resolveServiceFlags(
  flags: Flags,
  defaults: ServiceFlagDefaults,
  cwd: string = process.cwd(),
) {
  const { host, port, authToken, maxBatch, logLevel } = serviceFlags(defaults);
  const typed = flagText(flags.type);
  let type;
  try {
    type = typed === undefined ? undefined : parseIdType(typed);
  } catch {
    throw invalidFlag(
      `--type must be 'max-peak' (0) or 'min-granularity' (1), got ${JSON.stringify(typed)}`,
    );
  }
  const rawLayout = flagText(flags.layout);
  const layout = rawLayout === undefined ? undefined : parseLayoutFlag(rawLayout);
  const resolved = resolveLayoutOption(layout, type);
  const stateDir = flagText(flags.stateDir)?.trim();
  const legacy = flagText(flags.adoptLegacyMark);
  const generators = flagText(flags.generators);
  return Object.freeze({
    host: checkOption(host.schema, '--host', flags.host),
    port: wholeFlag('--port', flags.port, port.schema),
    type: resolved.layout.idType,
    ...(layout === undefined ? {} : { layout }),
    epochMs:
      flags.epoch === undefined && layout !== undefined
        ? resolved.defaultEpochMs
        : parseEpochFlag(flagText(flags.epoch)),
    stateDir:
      flags.stateDir === false
        ? undefined
        : resolveStateDir(
            stateDir === undefined
              ? DEFAULT_STATE_DIR
              : checkOption(nonEmptyString, '--state-dir', stateDir),
            cwd,
          ),
    authToken: checkOption(authToken.schema, '--auth-token', flags.authToken),
    maxBatch: wholeFlag('--max-batch', flags.maxBatch, maxBatch.schema),
    markWindowMs: wholeFlag('--mark-window-ms', flags.markWindowMs, SERVICE.markWindowMs),
    adoptLegacyMarkEpochMs:
      legacy === undefined ? undefined : parseEpoch(legacy, '--adopt-legacy-mark'),
    logLevel: checkOption(logLevel.schema, '--log-level', flags.logLevel),
    generators: Object.freeze({
      // The server checks each name (INVALID_OPTIONS naming it); empty items are typos.
      names: Object.freeze(
        generators === undefined ? [] : generators.split(',').map((n) => n.trim()),
      ),
      onDemand: flags.generatorsOnDemand === true,
    }),
  });
}

/** The shared flags after {@link resolveServiceFlags}. */
export type ServiceFlagValues = ReturnType<typeof resolveServiceFlags>;

/** Where a server's machine id comes from. */
export type ServerMachineId =
  | { machineId: number }
  | { machineIdProvider: MachineIdProvider }
  | { coordinator: ContainerModule };

/** The key a server leases its id under from --coordinator: --coordinator-key, else host:port. */
export function coordinatorKey(flags: Flags): string {
  return (
    flagText(flags.coordinatorKey) ??
    (flags.port === undefined ? hostname() : `${hostname()}:${String(flags.port)}`)
  );
}

/** The machine id of the flags; INVALID_OPTIONS for bad or conflicting ones. */
export async function machineIdFromFlags(
  flags: Flags,
  defaultMachineId: number,
  onDefault: (machineId: number) => void,
  logger?: Logger,
): Promise<ServerMachineId> {
  const given = ['machineId', 'coordinator', 'machineIdFrom'].filter((k) => flags[k] !== undefined);
  if (given.length > 1) {
    const names = given.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    throw invalidFlag(`give one machine-id source, not ${names.join(' and ')}`);
  }
  const coordinator = flagText(flags.coordinator);
  if (coordinator === undefined && flags.coordinatorKey !== undefined) {
    throw invalidFlag('--coordinator-key needs --coordinator');
  }
  if (flags.machineIdFrom === undefined && flags.machineIdOffset !== undefined) {
    throw invalidFlag('--machine-id-offset needs --machine-id-from');
  }
  if (coordinator !== undefined) {
    const module = (await coordinatorOf(coordinator)).machineIdModule(coordinator, {
      key: coordinatorKey(flags),
      keyGiven: flags.coordinatorKey !== undefined,
      stateDir:
        typeof flags.stateDir === 'string' && flags.stateDir !== '' ? flags.stateDir : undefined,
      logger,
    });
    return { coordinator: module };
  }
  if (flags.machineIdFrom !== undefined) {
    const offset = wholeFlag('--machine-id-offset', flags.machineIdOffset);
    return {
      machineIdProvider: new StatefulSetOrdinalMachineIdProvider(
        offset === undefined ? {} : { offset },
      ),
    };
  }
  if (flags.machineId === undefined) {
    onDefault(defaultMachineId);
    return { machineId: defaultMachineId };
  }
  return { machineId: wholeFlag('--machine-id', String(flags.machineId)) as number };
}
