// `@vesta/core/kit`: the building blocks of modes, servers and machine-id providers.
export {
  statusOf,
  GRPC_STATUS,
  type GrpcStatusName,
  codeOfWire,
  wireOf,
} from './errors/errorCodes.js';
export { checkBatchCount, DefaultIdService } from './service/DefaultIdService.js';
export { importOptional } from './loading/importOptional.js';
export { createBearerTokenCheck } from './auth/createBearerTokenCheck.js';
export {
  checkOption,
  defineOptions,
  type OptionsDefinition,
  withoutSecrets,
  splitOptions,
} from './options/defineOptions.js';
export {
  authTokenOption,
  checkedLater,
  functionOption,
  hostOption,
  nonEmptyString,
  objectWith,
  parsedOption,
  portOption,
  scrambleKeyOption,
  timeSourceOption,
  typedAs,
  wholeNumber,
} from './options/optionTypes.js';
export {
  DEFAULT_STATE_DIR,
  defaultMaxConnections,
  resolveStateDir,
  serverOptionsShape,
  softOpenFilesLimit,
} from './serverOptions.js';
export {
  segmentNumbersOf,
  segmentsOption,
  type SegmentNumbers,
  checkSegmentKey,
  MAX_SEGMENT_KEY_LENGTH,
} from './segment/segments.js';
export {
  ID_META_WIDTH_KEYS,
  VESTA_FIELD_ORDER,
  vestaLayoutSpec,
  MAX_FIELD_BITS,
} from './layout/IdMeta.js';
export {
  vestaUnitMs,
  MAX_PEAK_LAYOUT,
  MIN_GRANULARITY_LAYOUT,
  standardLayout,
  vestaLayout,
  isLayoutPresetName,
  layoutPreset,
  presetOf,
  resolveLayoutOption,
  TWITTER_EPOCH_MS,
  UID_GENERATOR_WIDTHS,
  uidGeneratorLayout,
} from './layout/layoutPresets.js';
export { sleep, sleepOn, systemClock } from './time/TimeSource.js';
export { Timer } from './time/Timer.js';
export { BaseIdPopulator } from './populator/BaseIdPopulator.js';
export { SHARED_ID_STATE_BYTES } from './populator/SharedIdState.js';
export { checkMachineIdInRange } from './machine-id/MachineIdProvider.js';
export { localIpv4Addresses } from './machine-id/IpListMachineIdProvider.js';
export { MemoryTimeMarkStore } from './state/TimeMarkStore.js';
export { FileTimeMarkStore } from './state/FileTimeMarkStore.js';
export { HighWaterMark } from './state/HighWaterMark.js';
export { writeFileDurably } from './state/writeFileDurably.js';
export {
  idServiceOptions,
  resolveIdServiceOptions,
  type ResolvedIdServiceOptions,
} from './service/IdServiceOptions.js';
export { composeIdService } from './service/createIdService.js';
export { idServiceModule, serverRangeModeModule } from './service/idServiceModule.js';
export { RunningParts } from './service/RunningParts.js';
export {
  FairIdQueue,
  FairIdShare,
  type FairIdShareOptions,
  WakeTimer,
} from './fairness/FairIdQueue.js';
export { ID_TYPE_NAMES, parseIdType } from './layout/IdType.js';
export { DEFAULT_SERVER_MACHINE_ID_START } from './layout/machineRanges.js';
export { parseIdForm } from './codec/IdForm.js';
export { MIN_SCRAMBLE_KEY_BYTES } from './codec/IdScrambler.js';
export { layoutSpecOf } from './codec/IdConverter.js';
export { makeUuid, type Uuid7Fields } from './uuid/uuid7Bits.js';
export { parseUuidForm, uuidOfHex, uuidText } from './uuid/uuidForms.js';
export { DEFAULT_EPOCH_MS, JAVA_VESTA_EPOCH_MS, parseInstant } from './time/parseEpoch.js';
export { checkGeneratorName, DEFAULT_GENERATOR } from './generators/IdGeneratorsOptions.js';
