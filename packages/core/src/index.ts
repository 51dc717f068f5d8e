import 'reflect-metadata';
// What an application uses; what a package building a mode or a provider needs is on `@vesta/core/kit`.
export { ERROR_CODES, isVestaErrorCode, type VestaErrorCode } from './errors/errorCodes.js';
export { VestaError, type VestaErrorOptions } from './errors/VestaError.js';
export { IdType, type IdTypeName } from './layout/IdType.js';
export {
  createIdMeta,
  type IdField,
  type IdFieldName,
  type IdMeta,
  type IdMetaFieldSpec,
  type IdMetaSpec,
  type IdMetaWidths,
} from './layout/IdMeta.js';
export {
  EMBEDDED_MACHINE_ID_RANGE,
  GenMethod,
  machineIdRanges,
  SERVER_MACHINE_ID_RANGE,
  type MachineIdRange,
  type MachineIdRanges,
} from './layout/machineRanges.js';
export {
  LAYOUT_PRESETS,
  type LayoutOption,
  type LayoutPreset,
  type LayoutPresetName,
  type ResolvedLayoutOption,
  type UidGeneratorWidths,
} from './layout/layoutPresets.js';
export {
  IdConverter,
  type Id,
  type IdConverterInfo,
  type IdRange,
  type MakeIdDefaults,
  type MakeIdFields,
  type TimeBounds,
  type TimeBoundsFilter,
} from './codec/IdConverter.js';
export { decodeUuid, type UuidBounds, type UuidFields } from './uuid/uuid7Bits.js';
export { parseId, formatId, ID_FORMS, type IdForm } from './codec/IdForm.js';
export { IdScrambler } from './codec/IdScrambler.js';
export { formatUuid, uuidBytes, UUID_FORMS, type UuidForm } from './uuid/uuidForms.js';
export {
  systemTimeSource,
  timeSourceWithClock,
  type Clock,
  type TimeSource,
  type TimerHandle,
} from './time/TimeSource.js';
export { parseEpoch } from './time/parseEpoch.js';
export type { Claim, IdPopulator, PopulatorKind } from './populator/IdPopulator.js';
export { SyncIdPopulator, LockIdPopulator } from './populator/SyncIdPopulator.js';
export { AtomicIdPopulator } from './populator/AtomicIdPopulator.js';
export { createSharedIdState, type SharedIdState } from './populator/SharedIdState.js';
export {
  StaticMachineIdProvider,
  type MachineIdLease,
  type MachineIdProvider,
  type MachineIdRequest,
} from './machine-id/MachineIdProvider.js';
export {
  IpListMachineIdProvider,
  type IpListMachineIdOptions,
  Ipv4LowBitsMachineIdProvider,
} from './machine-id/IpListMachineIdProvider.js';
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
  IdServiceObserver,
  SyncIdService,
} from './service/IdService.js';
export type { SegmentClaimOutcome, SegmentServiceObserver } from './segment/segments.js';
export type { IdServiceOptions, LegacyMarkOption } from './service/IdServiceOptions.js';
export { createIdService } from './service/createIdService.js';
export { TOKENS } from './tokens.js';
export {
  IdGenerators,
  type CreateOwnIdService,
  type IdGeneratorInfo,
  type IdGeneratorsObserver,
} from './generators/IdGenerators.js';
export type {
  IdGeneratorsOptions,
  NamedGeneratorOptions,
} from './generators/IdGeneratorsOptions.js';
