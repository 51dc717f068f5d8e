import { hostname as osHostname } from 'node:os';
import { z } from 'zod';
import { VestaError } from '../errors/VestaError.js';
import { defineOptions } from '../options/defineOptions.js';
import { wholeNumber } from '../options/optionTypes.js';
import { checkMachineIdInRange } from './MachineIdProvider.js';
import type { MachineIdLease, MachineIdProvider, MachineIdRequest } from './MachineIdProvider.js';

const HOSTNAME = { error: 'must be a host name like web-3' };
const statefulSetOptions = defineOptions('StatefulSet', {
  /** The pod's name, `<statefulset>-<ordinal>`. @default `$HOSTNAME` (the pod name), else `os.hostname()` */
  hostname: z.string(HOSTNAME).min(1, HOSTNAME).optional(),
  /** Added to the ordinal; give each StatefulSet sharing a range its own block. @default the range's first id */
  offset: wholeNumber(0, 1023).optional(),
});

export type StatefulSetOrdinalMachineIdOptions = Readonly<
  z.input<typeof statefulSetOptions.schema>
>;

function ordinalOf(hostname: string): number | undefined {
  const match = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?-(0|[1-9][0-9]{0,9})$/i.exec(
    hostname.split('.')[0] ?? '',
  );
  return match?.[2] === undefined ? undefined : Number(match[2]);
}

/**
 * A machine id from a Kubernetes StatefulSet pod's ordinal: `web-3` gets `offset + 3`. No
 * ordinal: MACHINE_ID_NOT_FOUND; past the range: MACHINE_ID_OUT_OF_RANGE, never wrapped.
 * @example
 * new StatefulSetOrdinalMachineIdProvider({ offset: 100 }); // pod ids-2 → machine id 102
 */
export class StatefulSetOrdinalMachineIdProvider implements MachineIdProvider {
  readonly #o: ReturnType<typeof statefulSetOptions.resolve>;

  constructor(options: StatefulSetOrdinalMachineIdOptions = {}) {
    this.#o = statefulSetOptions.resolve(options);
  }

  async acquire(request: MachineIdRequest): Promise<MachineIdLease> {
    const env = process.env['HOSTNAME'];
    const hostname = this.#o.hostname ?? (env !== undefined && env !== '' ? env : osHostname());
    const ordinal = ordinalOf(hostname);
    if (ordinal === undefined) {
      throw new VestaError(
        'MACHINE_ID_NOT_FOUND',
        `the host name ${JSON.stringify(hostname)} has no StatefulSet ordinal (expected <name>-<number>, like web-3)`,
        { details: { hostname } },
      );
    }
    const offset = this.#o.offset ?? request.range.min;
    return {
      machineId: checkMachineIdInRange(
        offset + ordinal,
        request.range,
        `the machine id of pod ${hostname} (offset ${offset} + ordinal ${ordinal})`,
      ),
    };
  }
}
