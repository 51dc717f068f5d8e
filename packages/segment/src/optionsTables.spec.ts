import { join } from 'node:path';
import { optionsTableMismatches } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { businessNumbersOptions } from './business/createBusinessNumbers.js';
import { postgresSegmentStoreOptions } from './postgres/PostgresSegmentStore.js';
import { redisSegmentStoreOptions } from './redis/RedisSegmentStore.js';
import { segmentServiceOptions } from './createSegmentService.js';

const README = join(import.meta.dirname, '../README.md');

describe('the README of @vesta/segment', () => {
  it.each([
    ['the service', segmentServiceOptions, undefined],
    ['PostgresSegmentStore', postgresSegmentStoreOptions, 'PostgreSQL'],
    ['RedisSegmentStore', redisSegmentStoreOptions, 'Redis'],
    ['createBusinessNumbers', businessNumbersOptions, 'Business numbers'],
  ] as const)(
    'says in the options table of %s what its declaration says',
    (_, declaration, section) => {
      expect(optionsTableMismatches(README, declaration, section)).toEqual([]);
    },
  );
});
