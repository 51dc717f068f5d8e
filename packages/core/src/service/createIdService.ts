import { Container } from 'inversify';
import { VestaError } from '../errors/VestaError.js';
import type { MachineIdLease } from '../machine-id/MachineIdProvider.js';
import { TOKENS } from '../tokens.js';
import type { IdService } from './IdService.js';
import { resolveIdServiceOptions, type IdServiceOptions } from './IdServiceOptions.js';
import { idServiceModule } from './idServiceModule.js';

interface Startable {
  start?(): Promise<void>;
}

/**
 * Builds an id service in its own inversify container: validates the options, loads the
 * default bindings and the user's modules, acquires the machine id, and runs the start-up
 * clock check. Modes call it with their genMethod and machine-id range.
 */
export async function createIdService<S extends IdService = IdService>(
  options: IdServiceOptions,
): Promise<S> {
  const resolved = resolveIdServiceOptions(options);
  const container = new Container();
  let lease: MachineIdLease | undefined;
  container.loadSync(idServiceModule(resolved));
  container.onActivation<MachineIdLease>(TOKENS.MachineIdLease, (_ctx, acquired) => {
    lease = acquired;
    return acquired;
  });
  if (resolved.modules.length > 0) await container.load(...resolved.modules);
  try {
    const service = await container.getAsync<S>(TOKENS.IdService);
    await (service as Startable).start?.();
    return service;
  } catch (error) {
    await lease?.release?.().catch(() => undefined);
    throw VestaError.from(error, 'the id service could not be built');
  }
}
