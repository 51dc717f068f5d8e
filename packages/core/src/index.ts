import 'reflect-metadata';

/*
 * What an application uses: errors, layouts and the codec, time, machine-id providers, the
 * id service and its extension points (TOKENS). What a package building a mode or a provider
 * needs besides (option declarations, populators, mark stores) is on `@vesta/core/kit`.
 */

export { ERROR_CODES, isVestaErrorCode, type VestaErrorCode } from './errors/errorCodes.js';
export { VestaError, type VestaErrorOptions } from './errors/VestaError.js';

export { IdType, ID_TYPE_NAMES, parseIdType, type IdTypeName } from './layout/IdType.js';
export {
  createIdLayout,
  MAX_FIELD_BITS,
  type IdField,
  type IdFieldName,
  type IdLayout,
  type IdLayoutFieldSpec,
  type IdLayoutSpec,
  type IdLayoutWidths,
} from './layout/IdLayout.js';
export {
  MAX_PEAK_LAYOUT,
  MIN_GRANULARITY_LAYOUT,
  standardLayout,
  vestaLayout,
} from './layout/standardLayouts.js';
export {
  DEFAULT_SERVER_MACHINE_ID_START,
  EMBEDDED_MACHINE_ID_RANGE,
  GenMethod,
  SERVER_MACHINE_ID_RANGE,
  type MachineIdRange,
} from './layout/machineRanges.js';

export type { Id, MakeIdFields } from './codec/Id.js';
export { IdCodec, type IdCodecInfo, type MakeIdDefaults } from './codec/IdCodec.js';
export { parseId } from './codec/parseId.js';

export { systemClock, type Clock } from './time/Clock.js';
export {
  systemTimeSource,
  timeSourceWithClock,
  type TimeSource,
  type TimerHandle,
} from './time/TimeSource.js';
export { DEFAULT_EPOCH_MS, JAVA_VESTA_EPOCH_MS } from './time/epochs.js';
export { parseEpoch } from './time/parseEpoch.js';

export type { Claim } from './populator/Claim.js';
export type { IdPopulator, PopulatorKind } from './populator/IdPopulator.js';
export { createSharedIdState, type SharedIdState } from './populator/SharedIdState.js';

export type {
  MachineIdLease,
  MachineIdProvider,
  MachineIdRequest,
} from './machine-id/MachineIdProvider.js';
export { StaticMachineIdProvider } from './machine-id/StaticMachineIdProvider.js';
export {
  IpListMachineIdProvider,
  type IpListMachineIdOptions,
} from './machine-id/IpListMachineIdProvider.js';
export { Ipv4LowBitsMachineIdProvider } from './machine-id/Ipv4LowBitsMachineIdProvider.js';
export {
  StatefulSetOrdinalMachineIdProvider,
  type StatefulSetOrdinalMachineIdOptions,
} from './machine-id/StatefulSetOrdinalMachineIdProvider.js';

export type { TimeMarkStore } from './state/TimeMarkStore.js';

export { consoleLogger, silentLogger, type Logger } from './logging/Logger.js';

export type {
  IdService,
  IdServiceHealth,
  IdServiceInfo,
  SyncIdService,
} from './service/IdService.js';
export type { IdServiceObserver } from './service/IdServiceObserver.js';
export type { IdServiceOptions } from './service/IdServiceOptions.js';
export { createIdService } from './service/createIdService.js';
export { TOKENS } from './tokens.js';
