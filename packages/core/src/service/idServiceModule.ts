import { ContainerModule } from 'inversify';
import { IdConverter } from '../codec/IdConverter.js';
import { identityOf, type IdIdentity } from '../identity/IdIdentity.js';
import type { IdMeta } from '../layout/IdMeta.js';
import { machineIdRanges, type MachineIdRange } from '../layout/machineRanges.js';
import type { Logger } from '../logging/Logger.js';
import type { MachineIdLease, MachineIdProvider } from '../machine-id/MachineIdProvider.js';
import { AtomicIdPopulator } from '../populator/AtomicIdPopulator.js';
import { LockIdPopulator, SyncIdPopulator } from '../populator/SyncIdPopulator.js';
import type { IdPopulator } from '../populator/IdPopulator.js';
import { createSharedIdState, markCells, type SharedIdState } from '../populator/SharedIdState.js';
import {
  CompositeTimeMarkStore,
  MemoryTimeMarkStore,
  type TimeMarkStore,
} from '../state/TimeMarkStore.js';
import { FileTimeMarkStore } from '../state/FileTimeMarkStore.js';
import { hostMarksRoot, HostTimeMarkStore } from '../state/HostTimeMarkStore.js';
import { HighWaterMark } from '../state/HighWaterMark.js';
import { systemClock } from '../time/Clock.js';
import { Timer } from '../time/Timer.js';
import type { TimeSource } from '../time/TimeSource.js';
import { TOKENS } from '../tokens.js';
import { DefaultIdService } from './DefaultIdService.js';
import type { IdServiceObserver } from './IdServiceObserver.js';
import type { ResolvedIdServiceOptions } from './IdServiceOptions.js';

type Options = ResolvedIdServiceOptions;

/** A layout without a genMethod field records 0: the machine-id ranges tell the issuers apart. */
function recordedGenMethod(layout: IdMeta, genMethod: number): number {
  return layout.genMethod.bits === 0 ? 0 : genMethod;
}

/**
 * Core's module: the options bind the leaves (options, time source, logger, observer, layout,
 * genMethod and range, a provider per machine-id option, shared state); every other part is
 * built from what is bound, so a part rebound by a later module flows into everything built on
 * it. `createIdService` validates the composition once, as a whole.
 */
export function idServiceModule(options: ResolvedIdServiceOptions): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.Options).toConstantValue(options);
    bind(TOKENS.TimeSource).toConstantValue(options.time);
    bind(TOKENS.Logger).toConstantValue(options.logger);
    bind(TOKENS.Observer).toConstantValue(options.observer);
    bind(TOKENS.IdMeta).toConstantValue(options.layout);
    bind(TOKENS.GenMethod).toConstantValue(options.genMethod);
    bind(TOKENS.MachineIdRange).toConstantValue(options.machineIdRange);
    // Unbound without either option (a coordinator's module binds it); both options bind both,
    // so that checkComposition, the one place of the rule, sees two sources.
    for (const provider of options.machineIdProviders) {
      bind(TOKENS.MachineIdProvider).toConstantValue(provider);
    }
    bind<SharedIdState>(TOKENS.SharedIdState)
      .toResolvedValue((o: Options) => o.sharedState ?? createSharedIdState(), [TOKENS.Options])
      .inSingletonScope();
    bind<IdConverter>(TOKENS.IdConverter)
      .toResolvedValue(
        (layout: IdMeta, o: Options) => new IdConverter(layout, o.epochMs),
        [TOKENS.IdMeta, TOKENS.Options],
      )
      .inSingletonScope();
    bind<Timer>(TOKENS.Timer)
      .toResolvedValue(
        (codec: IdConverter, time: TimeSource) =>
          new Timer(codec.epochMs, codec.layout.unitMs, codec.layout.time.bits, time),
        [TOKENS.IdConverter, TOKENS.TimeSource],
      )
      .inSingletonScope();
    bind<IdPopulator>(TOKENS.IdPopulator)
      .toResolvedValue(
        (
          o: Options,
          timer: Timer,
          layout: IdMeta,
          observer: IdServiceObserver,
          shared: SharedIdState,
        ) => {
          const { rollbackToleranceMs: tolerance, maxWaiting, maxLeadMs } = o;
          if (o.populator === 'atomic') {
            return new AtomicIdPopulator(
              timer,
              layout,
              tolerance,
              observer,
              shared,
              maxWaiting,
              maxLeadMs,
            );
          }
          const Populator = o.populator === 'lock' ? LockIdPopulator : SyncIdPopulator;
          return new Populator(timer, layout, tolerance, observer, maxWaiting, maxLeadMs);
        },
        [TOKENS.Options, TOKENS.Timer, TOKENS.IdMeta, TOKENS.Observer, TOKENS.SharedIdState],
      )
      .inSingletonScope();
    bind<MachineIdLease>(TOKENS.MachineIdLease)
      .toResolvedValue(
        (provider: MachineIdProvider, range: MachineIdRange, genMethod: number, layout: IdMeta) =>
          provider.acquire({
            range,
            genMethod: recordedGenMethod(layout, genMethod),
            type: layout.idType,
          }),
        [TOKENS.MachineIdProvider, TOKENS.MachineIdRange, TOKENS.GenMethod, TOKENS.IdMeta],
      )
      .inSingletonScope();
    bind<IdIdentity>(TOKENS.IdIdentity)
      .toResolvedValue(
        (o: Options, codec: IdConverter, lease: MachineIdLease, genMethod: number): IdIdentity =>
          identityOf(codec.layout, codec.epochMs, {
            machine: lease.machineId,
            genMethod: recordedGenMethod(codec.layout, genMethod),
            version: o.version,
          }),
        [TOKENS.Options, TOKENS.IdConverter, TOKENS.MachineIdLease, TOKENS.GenMethod],
      )
      .inSingletonScope();
    bind<TimeMarkStore>(TOKENS.TimeMarkStore)
      .toResolvedValue(
        (o: Options, identity: IdIdentity, time: TimeSource, logger: Logger): TimeMarkStore => {
          const stores: TimeMarkStore[] = [];
          if (o.stateDir !== undefined) {
            const adopt = o.adoptLegacyMark;
            stores.push(
              new FileTimeMarkStore(o.stateDir, identity, adopt && { adoptLegacy: adopt }),
            );
          }
          // On the system clock a mark also stays on this host for the next process on this
          // machine id, whatever its state dir; a mark of an injected clock means nothing there.
          if (time.now === systemClock) {
            const root = hostMarksRoot(undefined, logger);
            stores.push(new HostTimeMarkStore(root, o.hostLockScope, identity, logger));
          }
          if (stores.length === 0) return new MemoryTimeMarkStore();
          return stores.length === 1
            ? (stores[0] as TimeMarkStore)
            : new CompositeTimeMarkStore(stores);
        },
        [TOKENS.Options, TOKENS.IdIdentity, TOKENS.TimeSource, TOKENS.Logger],
      )
      .inSingletonScope();
    bind<HighWaterMark>(TOKENS.HighWaterMark)
      .toResolvedValue(
        (
          o: Options,
          lease: MachineIdLease,
          store: TimeMarkStore,
          timer: Timer,
          shared: SharedIdState,
        ) =>
          new HighWaterMark(
            store,
            timer,
            o.markWindowMs,
            markCells(shared.buffer),
            lease.onHighWaterMark?.bind(lease),
          ),
        [
          TOKENS.Options,
          TOKENS.MachineIdLease,
          TOKENS.TimeMarkStore,
          TOKENS.Timer,
          TOKENS.SharedIdState,
        ],
      )
      .inSingletonScope();
    bind(TOKENS.IdService).to(DefaultIdService).inSingletonScope();
  });
}

/**
 * The module of a mode that issues from the server range (`serverModeModule`, `restModeModule`):
 * its genMethod, and the server range of the bound layout, so a rebound layout moves the range.
 *
 * @example
 * export const restModeModule = serverRangeModeModule(GenMethod.REST);
 */
export function serverRangeModeModule(genMethod: number): ContainerModule {
  return new ContainerModule(({ rebindSync }) => {
    rebindSync<number>(TOKENS.GenMethod).toConstantValue(genMethod);
    rebindSync<MachineIdRange>(TOKENS.MachineIdRange)
      .toResolvedValue((layout: IdMeta) => machineIdRanges(layout.widths).server, [TOKENS.IdMeta])
      .inSingletonScope();
  });
}
