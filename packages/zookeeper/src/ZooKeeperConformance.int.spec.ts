import { describeMachineIdProviderConformance } from '@vesta/testkit/conformance';
import { zooKeeperHarness } from './testing/zooKeeperHarness.js';

// A private ZooKeeper (the harness starts it): the suite kills, restarts and wipes it.
describeMachineIdProviderConformance(zooKeeperHarness);
