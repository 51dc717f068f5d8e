import { createEmbeddedIdService } from '@vesta/embedded';
import { createIdClient } from '@vesta/server';
import type { VestaIdService } from './VestaIdService.js';
import { resolveVestaModuleOptions, type VestaModuleOptions } from './VestaModuleOptions.js';

/** The id service of the module's options: the embedded service or the central servers' client. */
export async function createVestaIdService(options: VestaModuleOptions): Promise<VestaIdService> {
  const resolved = resolveVestaModuleOptions(options);
  return resolved.embedded !== undefined
    ? createEmbeddedIdService(resolved.embedded)
    : createIdClient(resolved.client);
}
