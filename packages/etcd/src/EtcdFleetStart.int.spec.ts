import { describeFleetStart } from '@vesta/testkit/conformance';
import { fleetStartHarness } from './testing/etcdFleetHarness.js';

// 1,000 starts at once in 4 processes, each on its own gRPC connection to an etcd of this file's
// own. Opt-in (VESTA_FLEET_ETCD=1): see the harness.
describeFleetStart(fleetStartHarness);
