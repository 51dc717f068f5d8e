export {
  createSegmentService,
  segmentServiceOptions,
  type ResolvedSegmentServiceOptions,
  type SegmentService,
  type SegmentServiceOptions,
} from './createSegmentService.js';
export {
  MAX_SEGMENT_NUMBER,
  MAX_SEGMENT_STEP,
  type SegmentClaim,
  type SegmentRange,
  type SegmentClaimRequest,
  type SegmentKeyInfo,
  type SegmentKeyOptions,
  type SegmentStore,
} from './store/SegmentStore.js';
export { MemorySegmentStore } from './store/MemorySegmentStore.js';
export { MAX_SEGMENT_KEY_LENGTH } from '@vesta/core/kit';
export {
  PostgresSegmentStore,
  postgresSegmentStoreOptions,
  type PostgresSegmentStoreOptions,
} from './postgres/PostgresSegmentStore.js';
export {
  RedisSegmentStore,
  redisSegmentStoreOptions,
  type RedisSegmentStoreOptions,
} from './redis/RedisSegmentStore.js';
export {
  businessNumbersOptions,
  createBusinessNumbers,
  type BusinessNumbers,
  type BusinessNumbersOptions,
} from './business/createBusinessNumbers.js';
export { NumberTemplate, type NumberReset } from './business/NumberTemplate.js';
