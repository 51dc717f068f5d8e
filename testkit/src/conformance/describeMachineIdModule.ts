import { EMBEDDED_MACHINE_ID_RANGE, silentLogger, type MachineIdProvider } from '@vesta/core';
import {
  createEmbeddedIdService,
  type EmbeddedIdService,
  type EmbeddedIdServiceOptions,
} from '@vesta/embedded';
import { afterEach, describe, expect, it } from 'vitest';
import { caughtAsync } from '../caughtAsync.js';
import { openAllocationEraOf } from '../openAllocationEraOf.js';
import type { ConformanceAllocation } from './MachineIdProviderHarness.js';

/** An inversify module, as id services take them (`modules`). */
type IdServiceModule = NonNullable<EmbeddedIdServiceOptions['modules']>[number];

/** What {@link describeMachineIdModule} needs of a coordinator package, against its real store. */
export interface MachineIdModuleHarness {
  /** The coordinator's name in test titles (`ZooKeeper`, `Redis`...). */
  readonly name: string;
  /** A namespace nobody used yet (a root, key prefix or schema). */
  namespace(): string;
  /** The package's module over `namespace`, leasing under `key` (none: the provider's default). */
  module(namespace: string, key?: string): IdServiceModule;
  /** A provider over `namespace` with `eraWaitMs: 0`, to open the era (`openAllocationEraOf`). */
  eraOpener(namespace: string): MachineIdProvider;
  /** The package admin's list of `namespace`. */
  list(namespace: string): Promise<readonly ConformanceAllocation[]>;
}

let instances = 0;

/**
 * Declares the specs of a coordinator package's machine-id module (`redisMachineIdModule`...)
 * against the real store: an id service composed from it leases from that store, two services
 * loading one module lease an id each, and a generator name with its own shape beside it is
 * refused without leaving an id held. Call it at the top level of an `*.int.spec.ts` file.
 */
export function describeMachineIdModule(harness: MachineIdModuleHarness): void {
  describe(`${harness.name}'s machine-id module composed into an id service`, () => {
    const services: EmbeddedIdService[] = [];
    afterEach(async () => {
      await Promise.all(services.splice(0).map((service) => service.close()));
    });
    /** A namespace with its era open, as after `vesta machine-ids init`. */
    const openNamespace = async (): Promise<string> => {
      const namespace = harness.namespace();
      await openAllocationEraOf(harness.eraOpener(namespace));
      return namespace;
    };
    const options = (modules: readonly IdServiceModule[]): EmbeddedIdServiceOptions => ({
      modules,
      logger: silentLogger,
      // Each service stands for another host: only the store keeps them apart.
      hostLockScope: `${process.env['VESTA_HOST_LOCK_SCOPE'] ?? 'default'}/module-${String(++instances)}`,
    });
    const start = async (module: IdServiceModule): Promise<EmbeddedIdService> => {
      const service = await createEmbeddedIdService(options([module]));
      services.push(service);
      return service;
    };
    const alive = async (namespace: string): Promise<ConformanceAllocation[]> =>
      (await harness.list(namespace)).filter((row) => row.alive);

    it(`leases the service's machine id from ${harness.name} under the key, and gives it back on close`, async () => {
      const namespace = await openNamespace();
      const service = await start(harness.module(namespace, 'orders-7'));
      const { machine } = service.info();
      expect(machine).toBeGreaterThanOrEqual(EMBEDDED_MACHINE_ID_RANGE.min);
      expect(machine).toBeLessThanOrEqual(EMBEDDED_MACHINE_ID_RANGE.max);
      expect(service.expId(await service.genId()).machine).toBe(machine);
      expect(await alive(namespace)).toEqual([
        expect.objectContaining({ machineId: machine, owner: 'orders-7' }),
      ]);
      await services.splice(0)[0]?.close();
      expect(await alive(namespace)).toEqual([]);
    });

    it('leases an id of its own for each of two services loading the one module', async () => {
      const namespace = await openNamespace();
      const module = harness.module(namespace);
      const first = await start(module);
      const second = await start(module);
      const machines = [first.info().machine, second.info().machine];
      expect(machines[0]).not.toBe(machines[1]);
      const held = (await alive(namespace)).map((row) => row.machineId);
      expect(held.sort((a, b) => a - b)).toEqual(machines.sort((a, b) => a - b));
    });

    it('refuses a generator name of its own shape beside the module (INVALID_OPTIONS: two machine-id sources) and holds nothing after', async () => {
      const namespace = await openNamespace();
      const error = await caughtAsync(() =>
        createEmbeddedIdService({
          ...options([harness.module(namespace, 'orders-7')]),
          generators: { names: { audit: { machineId: 5, type: 'min-granularity' } } },
        }),
      );
      expect(error.code).toBe('INVALID_OPTIONS');
      expect(error.message).toContain('exactly one');
      expect(await alive(namespace)).toEqual([]);
    });
  });
}
