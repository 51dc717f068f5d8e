import { describeMachineIdProviderConformance } from '@vesta/testkit/conformance';
import { redisHarness } from './testing/redisHarness.js';

// A redis-server of this file's own (the harness starts it): the suite kills, restarts and flushes it.
describeMachineIdProviderConformance(redisHarness);
