import 'reflect-metadata';

export { ERROR_CODES, isVestaErrorCode, type VestaErrorCode } from './errors/errorCodes.js';
export { VestaError, type VestaErrorOptions } from './errors/VestaError.js';

export { IdType, ID_TYPE_NAMES, parseIdType, type IdTypeName } from './layout/IdType.js';
export {
  createIdLayout,
  MAX_FIELD_BITS,
  VESTA_FIELD_ORDER,
  vestaLayoutSpec,
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
  vestaUnitMs,
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
  sleepOn,
  systemTimeSource,
  timeSourceWithClock,
  type TimeSource,
  type TimerHandle,
} from './time/TimeSource.js';
export { DEFAULT_EPOCH_MS, JAVA_VESTA_EPOCH_MS } from './time/epochs.js';
export { parseEpoch } from './time/parseEpoch.js';
export { Timer } from './time/Timer.js';
export { sleep } from './time/sleep.js';

export type { Claim } from './populator/Claim.js';
export type { IdPopulator, PopulatorKind } from './populator/IdPopulator.js';
export { BaseIdPopulator } from './populator/BaseIdPopulator.js';
export { SyncIdPopulator } from './populator/SyncIdPopulator.js';
export { LockIdPopulator } from './populator/LockIdPopulator.js';
export { AtomicIdPopulator } from './populator/AtomicIdPopulator.js';
export {
  createSharedIdState,
  SHARED_ID_STATE_BYTES,
  type SharedIdState,
} from './populator/SharedIdState.js';

export type {
  MachineIdLease,
  MachineIdProvider,
  MachineIdRequest,
} from './machine-id/MachineIdProvider.js';
export { checkMachineIdInRange } from './machine-id/checkMachineIdInRange.js';
export { StaticMachineIdProvider } from './machine-id/StaticMachineIdProvider.js';
export {
  IpListMachineIdProvider,
  type IpListMachineIdOptions,
} from './machine-id/IpListMachineIdProvider.js';
export { Ipv4LowBitsMachineIdProvider } from './machine-id/Ipv4LowBitsMachineIdProvider.js';
export { localIpv4Addresses } from './machine-id/localIpv4Addresses.js';

export type { TimeMarkStore } from './state/TimeMarkStore.js';
export { MemoryTimeMarkStore } from './state/MemoryTimeMarkStore.js';
export { FileTimeMarkStore } from './state/FileTimeMarkStore.js';
export { HighWaterMark } from './state/HighWaterMark.js';
export { writeFileDurably } from './state/writeFileDurably.js';

export { consoleLogger, silentLogger, type Logger } from './logging/Logger.js';

export type {
  IdService,
  IdServiceHealth,
  IdServiceInfo,
  SyncIdService,
} from './service/IdService.js';
export type { IdServiceObserver } from './service/IdServiceObserver.js';
export {
  idServiceOptions,
  resolveEpoch,
  resolveIdServiceOptions,
  type IdServiceOptions,
  type ResolvedIdServiceOptions,
} from './service/IdServiceOptions.js';
export { DefaultIdService } from './service/DefaultIdService.js';
export { idServiceModule } from './service/idServiceModule.js';
export { createIdService } from './service/createIdService.js';
export { checkOption, defineOptions, type OptionsDefinition } from './options/defineOptions.js';
export {
  authTokenOption,
  functionOption,
  hostOption,
  nonEmptyString,
  objectWith,
  parsedOption,
  portOption,
  wholeNumber,
} from './options/optionTypes.js';
export { DEFAULT_STATE_DIR, resolveStateDir, serverOptionsShape } from './options/serverOptions.js';
export { wholeNumberOption } from './options/wholeNumberOption.js';
export { defaultMaxConnections, softOpenFilesLimit } from './options/defaultMaxConnections.js';
export { TOKENS } from './tokens.js';
