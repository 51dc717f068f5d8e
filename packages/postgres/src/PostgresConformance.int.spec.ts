import { describeMachineIdProviderConformance } from '@vesta/testkit/conformance';
import { postgresHarness } from './testing/postgresHarness.js';

// A PostgreSQL cluster of this file's own (the harness starts it): the suite kills, restarts and wipes it.
describeMachineIdProviderConformance(postgresHarness);
