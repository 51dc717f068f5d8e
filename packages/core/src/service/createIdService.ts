import { Container, type ContainerModule } from 'inversify';
import { VestaError } from '../errors/VestaError.js';
import type { MachineIdRange } from '../layout/machineRanges.js';
import { checkMachineIdInRange } from '../machine-id/checkMachineIdInRange.js';
import type { MachineIdLease } from '../machine-id/MachineIdProvider.js';
import { TOKENS } from '../tokens.js';
import { checkComposition } from './checkComposition.js';
import type { IdService } from './IdService.js';
import { resolveIdServiceOptions, type IdServiceOptions } from './IdServiceOptions.js';
import { idServiceModule } from './idServiceModule.js';

interface Startable {
  start?(): Promise<void>;
}

/**
 * Builds an id service in its own inversify container, composed from modules: core's
 * (`idServiceModule`, parts built from what is bound), then `modules` in order (a mode's,
 * binding `TOKENS.GenMethod` and `TOKENS.MachineIdRange`; a coordinator's, binding
 * `TOKENS.MachineIdProvider`), then the `modules` option (the user's). It validates the
 * composition once (`checkComposition`), acquires the machine id and checks it against the
 * bound range, then runs the start-up clock check.
 *
 * @example
 * const service = await createIdService({ machineId: 1000 }, restModeModule);
 */
export async function createIdService<S extends IdService = IdService>(
  options: IdServiceOptions,
  ...modules: readonly ContainerModule[]
): Promise<S> {
  const resolved = resolveIdServiceOptions(options);
  const container = new Container();
  container.loadSync(idServiceModule(resolved));
  // One at a time, in order: a later module rebinds what an earlier one bound.
  for (const module of [...modules, ...resolved.modules]) await container.load(module);
  // Acquired here, not as a side effect of building the service, so a failure after it
  // releases it.
  let lease: MachineIdLease | undefined;
  try {
    await checkComposition(container);
    lease = await container.getAsync<MachineIdLease>(TOKENS.MachineIdLease);
    const range = await container.getAsync<MachineIdRange>(TOKENS.MachineIdRange);
    checkMachineIdInRange(lease.machineId, range, 'the machine id acquired');
    const service = await container.getAsync<S>(TOKENS.IdService);
    await (service as Startable).start?.();
    return service;
  } catch (error) {
    await lease?.release?.().catch(() => undefined);
    throw VestaError.from(error, 'the id service could not be built');
  }
}
