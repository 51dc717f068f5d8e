export { createSegmentService } from './createSegmentService.js';
export type { SegmentService } from './SegmentService.js';
export {
  segmentServiceOptions,
  type ResolvedSegmentServiceOptions,
  type SegmentServiceOptions,
} from './SegmentServiceOptions.js';
export type {
  SegmentClaim,
  SegmentRange,
  SegmentClaimRequest,
  SegmentKeyInfo,
  SegmentKeyOptions,
  SegmentStore,
} from './store/SegmentStore.js';
export { MemorySegmentStore } from './store/MemorySegmentStore.js';
export { MAX_SEGMENT_KEY_LENGTH } from '@vesta/core/kit';
export { MAX_SEGMENT_STEP } from './store/checkStep.js';
export { PostgresSegmentStore } from './postgres/PostgresSegmentStore.js';
export {
  postgresSegmentStoreOptions,
  type PostgresSegmentStoreOptions,
} from './postgres/PostgresSegmentStoreOptions.js';
export { RedisSegmentStore } from './redis/RedisSegmentStore.js';
export {
  redisSegmentStoreOptions,
  type RedisSegmentStoreOptions,
} from './redis/RedisSegmentStoreOptions.js';
export { MAX_SEGMENT_NUMBER } from './store/checkNewKey.js';
export { createBusinessNumbers, type BusinessNumbers } from './business/createBusinessNumbers.js';
export {
  businessNumbersOptions,
  type BusinessNumbersOptions,
} from './business/businessNumbersOptions.js';
export { NumberTemplate, type NumberReset } from './business/NumberTemplate.js';
