/**
 * The child process of a fleet start ({@link FleetProcesses}), compiled for plain Node: imports the
 * harness module named in its argument, creates the providers of its share of the fleet, says
 * `ready`, starts them all when told `go` (with the parent's clock of that moment), reports each
 * start's outcome, and holds the services it started until told `close` (or the parent is gone):
 * the parent checks the store's listing meanwhile. Messages go over the IPC channel of `fork`.
 */
import type { FleetStartHarness } from './FleetStartHarness.js';
import type { FleetChildConfig, FleetChildMessage, FleetParentMessage } from './FleetProcesses.js';
import { startFleetMembers, type FleetMember } from './startFleetMembers.js';

const config = JSON.parse(process.argv[2] ?? '') as FleetChildConfig;

function send(message: FleetChildMessage): void {
  if (process.connected) process.send?.(message);
}

const { fleetStartHarness: harness } = (await import(config.module)) as {
  fleetStartHarness: FleetStartHarness;
};
const members = config.indexes.map((index) => ({
  index,
  provider: harness.createProvider(config.address, config.namespace, `fleet-${index}`),
}));
let started: Promise<FleetMember[]> | undefined;
let closing: Promise<void> | undefined;

/** Closes what this process started (once its starts are answered), then lets it exit. */
function close(): Promise<void> {
  closing ??= (async () => {
    const ran = (await started) ?? [];
    await Promise.all(ran.map((m) => m.service?.close().catch(() => undefined)));
    await harness.dispose?.();
    process.disconnect?.();
  })();
  return closing;
}

process.on('message', (message: FleetParentMessage) => {
  if (message.type === 'close') {
    void close();
    return;
  }
  started ??= startFleetMembers(members, config.scope, message.goAtMs);
  void started.then((all) =>
    send({ type: 'outcomes', outcomes: all.map(({ service: _, ...outcome }) => outcome) }),
  );
});
// The parent is gone (its test ended or failed): nobody will ask for the services any more.
process.on('disconnect', () => void close());
send({ type: 'ready' });
