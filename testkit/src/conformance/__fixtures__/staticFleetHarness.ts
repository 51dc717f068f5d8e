/**
 * A test fixture: a fleet harness without a store, for FleetProcesses' own spec. Start `i` (key
 * `fleet-<i>`) is given machine id `100 * i` by configuration (from start 10 on, outside the
 * embedded range 0-923: refused); nothing is listed.
 */
import { StaticMachineIdProvider } from '@vesta/core';
import type { FleetProvider, FleetStartHarness } from '../FleetStartHarness.js';

export const fleetStartHarness: FleetStartHarness = {
  name: 'static',
  startCoordinator: () => Promise.reject(new Error('a static fleet has no coordinator')),
  namespace: () => 'static',
  createProvider: (_address, _namespace, key): FleetProvider => {
    const provider = new StaticMachineIdProvider(100 * Number(key.slice('fleet-'.length)));
    return { roundTrips: 0, acquire: (request) => provider.acquire(request) };
  },
  list: () => Promise.resolve([]),
};
