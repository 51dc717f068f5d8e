import type { Container } from 'inversify';
import type { IdConverter } from '../codec/IdConverter.js';
import { VestaError } from '../errors/VestaError.js';
import type { IdMeta } from '../layout/IdMeta.js';
import type { MachineIdRange } from '../layout/machineRanges.js';
import type { Timer } from '../time/Timer.js';
import { TOKENS } from '../tokens.js';
import type { ResolvedIdServiceOptions } from './IdServiceOptions.js';

/**
 * The one check of what involves more than one part, run on what is finally bound (core's
 * module, then the mode's, a coordinator's and the user's), before the machine id is acquired:
 * exactly one machine-id provider; the machine-id range, genMethod and version within the
 * bound layout; the bound timer on the layout and epoch. A mistake between options alone is
 * INVALID_OPTIONS; one involving a part bound by a module (a layout, range or genMethod) is
 * INVALID_LAYOUT. The machine id
 * itself is checked against the bound range once acquired (`createIdService`).
 */
export async function checkComposition(container: Container): Promise<void> {
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
  // Whose mistake: the options' alone (layout and value both as given) or the composition's.
  const fromOptions = layout === options.layout;
  const fits = (what: string, value: number, max: number, given: boolean): void => {
    if (!Number.isSafeInteger(value) || value < 0 || value > max) {
      throw new VestaError(
        fromOptions && given ? 'INVALID_OPTIONS' : 'INVALID_LAYOUT',
        `${what} ${value} does not fit the layout's ${what} field (a whole number from 0 to ${max})`,
      );
    }
  };
  // No genMethod field: the ids record 0, whatever the mode's (the machine-id ranges tell).
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
