import { codeOfAsync } from '@vesta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { IdType } from '../layout/IdType.js';
import {
  EMBEDDED_MACHINE_ID_RANGE,
  GenMethod,
  SERVER_MACHINE_ID_RANGE,
  type MachineIdRange,
} from '../layout/machineRanges.js';
import { StatefulSetOrdinalMachineIdProvider } from './StatefulSetOrdinalMachineIdProvider.js';

const request = (range: MachineIdRange = EMBEDDED_MACHINE_ID_RANGE) => ({
  range,
  genMethod: GenMethod.EMBEDDED,
  type: IdType.MAX_PEAK,
});
const idOf = async (
  options: ConstructorParameters<typeof StatefulSetOrdinalMachineIdProvider>[0],
  range?: MachineIdRange,
) => (await new StatefulSetOrdinalMachineIdProvider(options).acquire(request(range))).machineId;

const savedHostname = process.env['HOSTNAME'];
afterEach(() => {
  if (savedHostname === undefined) delete process.env['HOSTNAME'];
  else process.env['HOSTNAME'] = savedHostname;
});

describe('StatefulSetOrdinalMachineIdProvider', () => {
  it.each([
    ['web-0', undefined, EMBEDDED_MACHINE_ID_RANGE, 0],
    ['web-3', undefined, EMBEDDED_MACHINE_ID_RANGE, 3],
    ['web-3', undefined, SERVER_MACHINE_ID_RANGE, 927],
    ['web-3', 100, EMBEDDED_MACHINE_ID_RANGE, 103],
    ['orders-api-12', 0, EMBEDDED_MACHINE_ID_RANGE, 12],
    ['ids-2.ids.default.svc.cluster.local', undefined, SERVER_MACHINE_ID_RANGE, 926],
    ['web-923', 0, EMBEDDED_MACHINE_ID_RANGE, 923],
    ['ids-99', undefined, SERVER_MACHINE_ID_RANGE, 1023],
  ])('gives pod %s (offset %s) in %j machine id %i', async (hostname, offset, range, id) => {
    expect(await idOf({ hostname, ...(offset === undefined ? {} : { offset }) }, range)).toBe(id);
  });

  it.each([['web'], ['web-'], ['web-x'], ['3'], ['-3'], ['web-03'], ['localhost']])(
    'refuses host name %s, which has no ordinal, with MACHINE_ID_NOT_FOUND',
    async (hostname) => {
      const provider = new StatefulSetOrdinalMachineIdProvider({ hostname });
      expect(await codeOfAsync(() => provider.acquire(request()))).toBe('MACHINE_ID_NOT_FOUND');
    },
  );

  it.each([
    ['web-924', undefined, EMBEDDED_MACHINE_ID_RANGE],
    ['ids-100', undefined, SERVER_MACHINE_ID_RANGE],
    ['web-24', 900, EMBEDDED_MACHINE_ID_RANGE],
    ['web-0', 10, SERVER_MACHINE_ID_RANGE],
  ])(
    'refuses pod %s (offset %s) whose id does not fit %j with MACHINE_ID_OUT_OF_RANGE',
    async (hostname, offset, range) => {
      const provider = new StatefulSetOrdinalMachineIdProvider({
        hostname,
        ...(offset === undefined ? {} : { offset }),
      });
      expect(await codeOfAsync(() => provider.acquire(request(range)))).toBe(
        'MACHINE_ID_OUT_OF_RANGE',
      );
    },
  );

  it('reads the pod name from HOSTNAME when none is given', async () => {
    process.env['HOSTNAME'] = 'ids-5';
    expect(await idOf({})).toBe(5);
  });

  it.each([[{ offset: -1 }], [{ offset: 1.5 }], [{ hostname: '' }], [{ ordinal: 3 }]])(
    'rejects options %j with INVALID_OPTIONS',
    (options) => {
      expect(() => new StatefulSetOrdinalMachineIdProvider(options as never)).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTIONS' }),
      );
    },
  );
});
