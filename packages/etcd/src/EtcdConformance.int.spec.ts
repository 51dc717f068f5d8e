import { describeMachineIdProviderConformance } from '@vesta/testkit/conformance';
import { etcdHarness } from './testing/etcdHarness.js';

// An etcd of this file's own (the harness starts it): the suite kills, restarts and wipes it.
describeMachineIdProviderConformance(etcdHarness);
