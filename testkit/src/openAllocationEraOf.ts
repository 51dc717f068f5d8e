import { GenMethod, IdType, type MachineIdProvider } from '@vesta/core';

/**
 * Opens a coordinator namespace's allocation era at once, as an operator's `vesta machine-ids
 * init` would on a new store: `provider` (built with `eraWaitMs: 0`) takes machine id 0 and
 * gives it back, so later starts in the namespace do not wait out the fencing bound.
 */
export async function openAllocationEraOf(provider: MachineIdProvider): Promise<void> {
  const lease = await provider.acquire({
    range: { min: 0, max: 0 },
    genMethod: GenMethod.EMBEDDED,
    type: IdType.MAX_PEAK,
  });
  await lease.release?.();
}
