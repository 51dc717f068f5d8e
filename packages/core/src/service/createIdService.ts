import { Container, type ContainerModule } from 'inversify';
import type { IdConverter } from '../codec/IdConverter.js';
import { VestaError } from '../errors/VestaError.js';
import type { IdMeta } from '../layout/IdMeta.js';
import type { MachineIdRange } from '../layout/machineRanges.js';
import { checkMachineIdInRange, type MachineIdLease } from '../machine-id/MachineIdProvider.js';
import type { Timer } from '../time/Timer.js';
import { TOKENS } from '../tokens.js';
import type { IdService } from './IdService.js';
import { resolveIdServiceOptions } from './IdServiceOptions.js';
import type { IdServiceOptions, ResolvedIdServiceOptions } from './IdServiceOptions.js';
import { idServiceModule } from './idServiceModule.js';

/**
 * Builds an id service in its own inversify container: see {@link composeIdService}.
 * @example
 * const service = await createIdService({ machineId: 1000 }, restModeModule);
 */
export function createIdService<S extends IdService = IdService>(
  options: IdServiceOptions,
  ...modules: readonly ContainerModule[]
): Promise<S> {
  return composeIdService(new Container(), options, ...modules);
}

/**
 * Composes an id service in `container` (a server's: its parts join it) from core's module, then
 * `modules` in order (a mode's, a coordinator's), then the `modules` option; validates the
 * composition once, acquires the machine id, checks it against the bound range and starts it.
 */
export async function composeIdService<S extends IdService = IdService>(
  container: Container,
  options: IdServiceOptions,
  ...modules: readonly ContainerModule[]
): Promise<S> {
  const resolved = resolveIdServiceOptions(options);
  container.loadSync(idServiceModule(resolved));
  // One at a time, in order: a later module rebinds what an earlier one bound.
  for (const module of [...modules, ...resolved.modules]) await container.load(module);
  // Acquired here, not as a side effect of building the service, so a failure releases it.
  let lease: MachineIdLease | undefined;
  try {
    await checkComposition(container);
    lease = await container.getAsync<MachineIdLease>(TOKENS.MachineIdLease);
    const range = await container.getAsync<MachineIdRange>(TOKENS.MachineIdRange);
    checkMachineIdInRange(lease.machineId, range, 'the machine id acquired');
    const service = await container.getAsync<S>(TOKENS.IdService);
    await (service as { start?(): Promise<void> }).start?.();
    return service;
  } catch (error) {
    await lease?.release?.().catch(() => undefined);
    throw VestaError.from(error, 'the id service could not be built');
  }
}

/** Checks what is finally bound: INVALID_OPTIONS for the options' own mistakes, else INVALID_LAYOUT. */
async function checkComposition(container: Container): Promise<void> {
  const providers = container.isBound(TOKENS.MachineIdProvider)
    ? (await container.getAllAsync(TOKENS.MachineIdProvider)).length
    : 0;
  if (providers !== 1) {
    throw new VestaError(
      'INVALID_OPTIONS',
      'give exactly one of machineId and machineIdProvider, or a module binding TOKENS.MachineIdProvider',
      { details: { providers } },
    );
  }
  const options = await container.getAsync<ResolvedIdServiceOptions>(TOKENS.Options);
  const layout = await container.getAsync<IdMeta>(TOKENS.IdMeta);
  const range = await container.getAsync<MachineIdRange>(TOKENS.MachineIdRange);
  const genMethod = await container.getAsync<number>(TOKENS.GenMethod);
  const fromOptions = layout === options.layout;
  const fits = (what: string, value: number, max: number, given: boolean): void => {
    if (!Number.isSafeInteger(value) || value < 0 || value > max) {
      throw new VestaError(
        fromOptions && given ? 'INVALID_OPTIONS' : 'INVALID_LAYOUT',
        `${what} ${value} does not fit the layout's ${what} field (a whole number from 0 to ${max})`,
      );
    }
  };
  // No genMethod field: the ids record 0, whatever the mode's.
  if (layout.genMethod.bits > 0) {
    fits('genMethod', genMethod, layout.genMethod.max, genMethod === options.genMethod);
  }
  fits('version', options.version, layout.version.max, true);
  const rangeGiven = range === options.machineIdRange;
  if (range.min > range.max) {
    throw new VestaError(
      rangeGiven ? 'INVALID_OPTIONS' : 'INVALID_LAYOUT',
      `machine id range ${range.min}-${range.max} is empty`,
    );
  }
  fits('machine id range end', range.max, layout.machine.max, rangeGiven);
  const timer = await container.getAsync<Timer>(TOKENS.Timer);
  const codec = await container.getAsync<IdConverter>(TOKENS.IdConverter);
  if (timer.unitMs !== layout.unitMs || timer.epochMs !== codec.epochMs) {
    throw new VestaError(
      'INVALID_LAYOUT',
      'the bound timer does not match the bound layout and epoch',
    );
  }
}
