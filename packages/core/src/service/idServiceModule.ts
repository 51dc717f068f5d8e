import { ContainerModule, type ResolutionContext } from 'inversify';
import { IdConverter } from '../id/IdConverter.js';
import type { Logger } from '../logging/Logger.js';
import type { IdIdentity } from '../identity/IdIdentity.js';
import type { IdMeta } from '../layout/IdMeta.js';
import { IdType, timeUnitMs } from '../layout/IdType.js';
import { standardMeta } from '../layout/standardLayouts.js';
import type { MachineIdLease, MachineIdProvider } from '../machine-id/MachineIdProvider.js';
import { AtomicIdPopulator } from '../populator/AtomicIdPopulator.js';
import type { IdPopulator } from '../populator/IdPopulator.js';
import { LockIdPopulator } from '../populator/LockIdPopulator.js';
import { createSharedIdState, markCells, type SharedIdState } from '../populator/SharedIdState.js';
import { SyncIdPopulator } from '../populator/SyncIdPopulator.js';
import { CompositeTimeMarkStore } from '../state/CompositeTimeMarkStore.js';
import { FileTimeMarkStore } from '../state/FileTimeMarkStore.js';
import { hostMarksDir } from '../state/hostMarksDir.js';
import { HostTimeMarkStore } from '../state/HostTimeMarkStore.js';
import { HighWaterMark } from '../state/HighWaterMark.js';
import { MemoryTimeMarkStore } from '../state/MemoryTimeMarkStore.js';
import type { TimeMarkStore } from '../state/TimeMarkStore.js';
import { systemClock, type Clock } from '../time/Clock.js';
import { Timer } from '../time/Timer.js';
import { TOKENS } from '../tokens.js';
import { DefaultIdService } from './DefaultIdService.js';
import type { IdServiceObserver } from './IdServiceObserver.js';
import type { ResolvedIdServiceOptions } from './IdServiceOptions.js';

/**
 * The default bindings of an id service, from resolved options. Modes load it, then the
 * user's modules, which may rebind any token.
 */
export function idServiceModule(options: ResolvedIdServiceOptions): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const opts = (ctx: ResolutionContext): ResolvedIdServiceOptions => ctx.get(TOKENS.Options);
    bind(TOKENS.Options).toConstantValue(options);
    bind(TOKENS.Clock).toConstantValue(options.clock);
    bind(TOKENS.Logger).toConstantValue(options.logger);
    bind(TOKENS.Observer).toConstantValue(options.observer);
    bind(TOKENS.IdMeta).toConstantValue(options.meta);
    bind(TOKENS.IdLayouts)
      .toDynamicValue((ctx) => {
        const own = ctx.get<IdMeta>(TOKENS.IdMeta);
        const type = opts(ctx).type;
        const otherType = type === IdType.MAX_PEAK ? IdType.MIN_GRANULARITY : IdType.MAX_PEAK;
        const other = standardMeta(otherType);
        const layouts = new Map<IdType, IdMeta>([[type, own]]);
        if (own.type.bits === 1 && own.type.start === other.type.start)
          layouts.set(otherType, other);
        return layouts;
      })
      .inSingletonScope();
    bind(TOKENS.Timer)
      .toDynamicValue((ctx) => {
        const o = opts(ctx);
        const meta = ctx.get<IdMeta>(TOKENS.IdMeta);
        return new Timer(
          o.epochMs,
          timeUnitMs(o.type),
          meta.time.bits,
          ctx.get<Clock>(TOKENS.Clock),
        );
      })
      .inSingletonScope();
    bind(TOKENS.IdConverter).to(IdConverter).inSingletonScope();
    bind(TOKENS.SharedIdState)
      .toDynamicValue((ctx) => opts(ctx).sharedState ?? createSharedIdState())
      .inSingletonScope();
    bind(TOKENS.IdPopulator)
      .toDynamicValue((ctx): IdPopulator => {
        const o = opts(ctx);
        const timer = ctx.get<Timer>(TOKENS.Timer);
        const meta = ctx.get<IdMeta>(TOKENS.IdMeta);
        const observer = ctx.get<IdServiceObserver>(TOKENS.Observer);
        switch (o.populator) {
          case 'sync':
            return new SyncIdPopulator(timer, meta, o.rollbackToleranceMs, observer, o.maxWaiting);
          case 'lock':
            return new LockIdPopulator(timer, meta, o.rollbackToleranceMs, observer, o.maxWaiting);
          case 'atomic':
            return new AtomicIdPopulator(
              timer,
              meta,
              o.rollbackToleranceMs,
              observer,
              ctx.get(TOKENS.SharedIdState),
              o.maxWaiting,
            );
        }
      })
      .inSingletonScope();
    bind(TOKENS.MachineIdProvider).toConstantValue(options.machineIdProvider);
    bind(TOKENS.MachineIdLease)
      .toDynamicValue(async (ctx): Promise<MachineIdLease> => {
        const o = opts(ctx);
        const provider = ctx.get<MachineIdProvider>(TOKENS.MachineIdProvider);
        return provider.acquire({ range: o.machineIdRange, genMethod: o.genMethod, type: o.type });
      })
      .inSingletonScope();
    bind(TOKENS.IdIdentity)
      .toDynamicValue(async (ctx): Promise<IdIdentity> => {
        const o = opts(ctx);
        const lease = await ctx.getAsync<MachineIdLease>(TOKENS.MachineIdLease);
        return Object.freeze({
          layout: ctx.get<IdMeta>(TOKENS.IdMeta).widths,
          epochMs: o.epochMs,
          unitMs: timeUnitMs(o.type),
          machine: lease.machineId,
          genMethod: o.genMethod,
          type: o.type,
          version: o.version,
        });
      })
      .inSingletonScope();
    bind(TOKENS.TimeMarkStore)
      .toDynamicValue(async (ctx): Promise<TimeMarkStore> => {
        const o = opts(ctx);
        const identity = await ctx.getAsync<IdIdentity>(TOKENS.IdIdentity);
        const stores: TimeMarkStore[] = [];
        if (o.stateDir !== undefined) stores.push(new FileTimeMarkStore(o.stateDir, identity));
        // On the system clock, a mark also stays on this host for the next process on this
        // machine id, whatever its state dir (none, or another): a restart within the same
        // unit then continues above it. A mark of another (injected) clock means nothing there.
        if (ctx.get<Clock>(TOKENS.Clock) === systemClock) {
          const logger = ctx.get<Logger>(TOKENS.Logger);
          stores.push(new HostTimeMarkStore(hostMarksDir(o.hostLockScope), identity, logger));
        }
        if (stores.length === 0) return new MemoryTimeMarkStore();
        return stores.length === 1
          ? (stores[0] as TimeMarkStore)
          : new CompositeTimeMarkStore(stores);
      })
      .inSingletonScope();
    bind(TOKENS.HighWaterMark)
      .toDynamicValue(async (ctx) => {
        const o = opts(ctx);
        const lease = await ctx.getAsync<MachineIdLease>(TOKENS.MachineIdLease);
        const store = await ctx.getAsync<TimeMarkStore>(TOKENS.TimeMarkStore);
        const shared = ctx.get<SharedIdState>(TOKENS.SharedIdState);
        const onRaise = lease.onHighWaterMark?.bind(lease);
        return new HighWaterMark(
          store,
          ctx.get<Timer>(TOKENS.Timer),
          o.markWindowMs,
          markCells(shared.buffer),
          onRaise,
        );
      })
      .inSingletonScope();
    bind(TOKENS.IdService).to(DefaultIdService).inSingletonScope();
  });
}
