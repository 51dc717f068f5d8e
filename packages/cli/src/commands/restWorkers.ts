import { SERVER_MACHINE_ID_RANGE, type MachineIdRange } from '@vesta/core';
import { checkMachineIdInRange, wholeNumber } from '@vesta/core/kit';
import type { Flags, SchemaFlag } from './addSchemaFlags.js';
import { invalidFlag, wholeFlag } from './wholeFlag.js';

/** How many processes `vesta rest` serves from, and where their machine ids come from. */
export type RestWorkerPlan =
  | {
      readonly workers: number;
      readonly source: 'range';
      readonly machineIds: MachineIdRange;
      /** Why fewer workers than cores, for the log (undefined when the cores set the count). */
      readonly note?: string;
    }
  | { readonly workers: number; readonly source: 'coordinator' }
  | { readonly workers: 1; readonly source: 'single'; readonly note?: string };

export const REST_WORKER_FLAGS = {
  workers: {
    schema: wholeNumber(1, 1024)
      .optional()
      .describe(
        'processes serving the port, each under a machine id of its own (default: the cores available with --machine-ids, at most its size; else 1)',
      ),
    arg: 'n',
  },
  machineIds: {
    help: 'machine ids of the workers, one each (e.g. 1020-1023, within 924-1023)',
    arg: 'min-max',
  },
} satisfies Record<string, SchemaFlag>;

function parseRange(raw: string): MachineIdRange {
  const match = /^([0-9]{1,4})-([0-9]{1,4})$/.exec(raw.trim());
  if (match === null) {
    throw invalidFlag(`--machine-ids must be min-max (e.g. 1020-1023), got ${JSON.stringify(raw)}`);
  }
  const min = checkMachineIdInRange(Number(match[1]), SERVER_MACHINE_ID_RANGE, '--machine-ids min');
  const max = checkMachineIdInRange(Number(match[2]), SERVER_MACHINE_ID_RANGE, '--machine-ids max');
  if (min > max) throw invalidFlag(`--machine-ids ${raw} is empty: min above max`);
  return { min, max };
}

/** How many processes `vesta rest` runs: one per id of `--machine-ids`, else `--workers` or 1. */
export function planRestWorkers(flags: Flags, cores: number): RestWorkerPlan {
  const workers = wholeFlag('--workers', flags.workers, REST_WORKER_FLAGS.workers.schema);
  const leased = flags.coordinator !== undefined;
  if (flags.machineIds !== undefined) {
    if (leased || flags.machineId !== undefined) {
      throw invalidFlag('give one of --machine-id, --machine-ids and --coordinator');
    }
    const machineIds = parseRange(String(flags.machineIds));
    const size = machineIds.max - machineIds.min + 1;
    if (workers !== undefined && workers > size) {
      throw invalidFlag(
        `--workers ${workers} needs ${workers} machine ids, --machine-ids ${machineIds.min}-${machineIds.max} holds ${size}: two workers on one id would issue the same ids`,
      );
    }
    if (workers !== undefined || size >= cores) {
      return { workers: workers ?? cores, source: 'range', machineIds };
    }
    return {
      workers: size,
      source: 'range',
      machineIds,
      note: `${size} worker(s) for ${cores} cores: --machine-ids ${machineIds.min}-${machineIds.max} holds ${size} id(s), one per worker`,
    };
  }
  if (leased) {
    // One process (its key unsuffixed) unless --workers asks for more.
    return { workers: workers ?? 1, source: 'coordinator' };
  }
  if (workers !== undefined && workers > 1) {
    throw invalidFlag(
      `--workers ${workers} needs a machine id per worker: give --machine-ids min-max or --coordinator; one machine id serves one process`,
    );
  }
  return workers === undefined && cores > 1
    ? {
        workers: 1,
        source: 'single',
        note: `serving from 1 process of ${cores} cores: one machine id cannot be shared; give --machine-ids min-max (or --coordinator) for a worker per core`,
      }
    : { workers: 1, source: 'single' };
}
