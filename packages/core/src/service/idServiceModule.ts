import { ContainerModule } from 'inversify';
import { IdConverter } from '../codec/IdConverter.js';
import { identityOf, type IdIdentity } from '../identity/IdIdentity.js';
import type { IdMeta } from '../layout/IdMeta.js';
import { machineIdRanges, type MachineIdRange } from '../layout/machineRanges.js';
import type { Logger } from '../logging/Logger.js';
import type { MachineIdLease, MachineIdProvider } from '../machine-id/MachineIdProvider.js';
import { AtomicIdPopulator } from '../populator/AtomicIdPopulator.js';
import { LockIdPopulator, SyncIdPopulator } from '../populator/SyncIdPopulator.js';
import { createSharedIdState, markCells, type SharedIdState } from '../populator/SharedIdState.js';
import { CompositeTimeMarkStore, MemoryTimeMarkStore } from '../state/TimeMarkStore.js';
import type { TimeMarkStore } from '../state/TimeMarkStore.js';
import { FileTimeMarkStore, hostMarksRoot, HostTimeMarkStore } from '../state/FileTimeMarkStore.js';
import { HighWaterMark } from '../state/HighWaterMark.js';
import { Timer } from '../time/Timer.js';
import { systemClock, type TimeSource } from '../time/TimeSource.js';
import { TOKENS } from '../tokens.js';
import { DefaultIdService } from './DefaultIdService.js';
import type { IdServiceObserver } from './IdService.js';
import type { ResolvedIdServiceOptions } from './IdServiceOptions.js';

type Options = ResolvedIdServiceOptions;
const T = TOKENS;

/** A layout without a genMethod field records 0: the machine-id ranges tell the issuers apart. */
function recorded(layout: IdMeta, genMethod: number): number {
  return layout.genMethod.bits === 0 ? 0 : genMethod;
}

/** Core's module: options bind the leaves, the rest is built from what is bound (so rebinds flow). */
export function idServiceModule(options: ResolvedIdServiceOptions): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(T.Options).toConstantValue(options);
    bind(T.TimeSource).toConstantValue(options.time);
    bind(T.Logger).toConstantValue(options.logger);
    bind(T.Observer).toConstantValue(options.observer);
    bind(T.IdMeta).toConstantValue(options.layout);
    bind(T.GenMethod).toConstantValue(options.genMethod);
    bind(T.MachineIdRange).toConstantValue(options.machineIdRange);
    // Both options bind both, so that checkComposition, the one place of the rule, sees two.
    for (const provider of options.machineIdProviders)
      bind(T.MachineIdProvider).toConstantValue(provider);
    const part = <T, A extends unknown[]>(token: symbol, deps: symbol[], build: (...d: A) => T) =>
      bind<T>(token)
        .toResolvedValue(build, deps as never)
        .inSingletonScope();
    part(T.SharedIdState, [T.Options], (o: Options) => o.sharedState ?? createSharedIdState());
    part(
      T.IdConverter,
      [T.IdMeta, T.Options],
      (layout: IdMeta, o: Options) => new IdConverter(layout, o.epochMs),
    );
    part(T.Timer, [T.IdConverter, T.TimeSource], (codec: IdConverter, time: TimeSource) => {
      const { unitMs, time: field } = codec.layout;
      return new Timer(codec.epochMs, unitMs, field.bits, time);
    });
    const populatorDeps = [T.Options, T.Timer, T.IdMeta, T.Observer, T.SharedIdState];
    part(
      T.IdPopulator,
      populatorDeps,
      (o: Options, timer: Timer, layout: IdMeta, observer: IdServiceObserver, s: SharedIdState) => {
        const args = [timer, layout, o.rollbackToleranceMs, observer] as const;
        if (o.populator === 'atomic')
          return new AtomicIdPopulator(...args, s, o.maxWaiting, o.maxLeadMs);
        const Populator = o.populator === 'lock' ? LockIdPopulator : SyncIdPopulator;
        return new Populator(...args, o.maxWaiting, o.maxLeadMs);
      },
    );
    const leaseDeps = [T.MachineIdProvider, T.MachineIdRange, T.GenMethod, T.IdMeta];
    part(
      T.MachineIdLease,
      leaseDeps,
      (provider: MachineIdProvider, range: MachineIdRange, genMethod: number, layout: IdMeta) =>
        provider.acquire({ range, genMethod: recorded(layout, genMethod), type: layout.idType }),
    );
    const identityDeps = [T.Options, T.IdConverter, T.MachineIdLease, T.GenMethod];
    part(
      T.IdIdentity,
      identityDeps,
      (o: Options, codec: IdConverter, lease: MachineIdLease, genMethod: number) =>
        identityOf(codec.layout, codec.epochMs, {
          machine: lease.machineId,
          genMethod: recorded(codec.layout, genMethod),
          version: o.version,
        }),
    );
    const storeDeps = [T.Options, T.IdIdentity, T.TimeSource, T.Logger];
    part(
      T.TimeMarkStore,
      storeDeps,
      (o: Options, identity: IdIdentity, time: TimeSource, logger: Logger) => {
        const stores: TimeMarkStore[] = [];
        const adopt = o.adoptLegacyMark;
        if (o.stateDir !== undefined)
          stores.push(new FileTimeMarkStore(o.stateDir, identity, adopt && { adoptLegacy: adopt }));
        // On the system clock a mark also stays on this host (an injected clock's means nothing).
        if (time.now === systemClock) {
          const root = hostMarksRoot(undefined, logger);
          stores.push(new HostTimeMarkStore(root, o.hostLockScope, identity, logger));
        }
        return stores.length < 2
          ? (stores[0] ?? new MemoryTimeMarkStore())
          : new CompositeTimeMarkStore(stores);
      },
    );
    const markDeps = [T.Options, T.MachineIdLease, T.TimeMarkStore, T.Timer, T.SharedIdState];
    part(
      T.HighWaterMark,
      markDeps,
      (o: Options, lease: MachineIdLease, store: TimeMarkStore, timer: Timer, s: SharedIdState) => {
        const onRaise = lease.onHighWaterMark?.bind(lease);
        return new HighWaterMark(store, timer, o.markWindowMs, markCells(s.buffer), onRaise);
      },
    );
    bind(T.IdService).to(DefaultIdService).inSingletonScope();
  });
}

/** The module of a mode issuing from the server range: its genMethod, the bound layout's range. */
export function serverRangeModeModule(genMethod: number): ContainerModule {
  return new ContainerModule(({ rebindSync }) => {
    rebindSync<number>(TOKENS.GenMethod).toConstantValue(genMethod);
    rebindSync<MachineIdRange>(TOKENS.MachineIdRange)
      .toResolvedValue((layout: IdMeta) => machineIdRanges(layout.widths).server, [TOKENS.IdMeta])
      .inSingletonScope();
  });
}
