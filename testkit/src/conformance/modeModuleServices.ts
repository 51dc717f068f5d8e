import { createIdService, silentLogger, TOKENS, type IdService } from '@vesta/core';
import { layoutPreset } from '@vesta/core/kit';
import { ContainerModule } from 'inversify';
import { afterEach } from 'vitest';

/** What {@link modeModuleServices} gives a mode module's specs. */
export interface ModeModuleServices {
  /** An id service composed from core's module over `options` and then `modules`, in order. */
  build(options: { machineId?: number }, ...modules: ContainerModule[]): Promise<IdService>;
  /** A user module rebinding the layout to Twitter's preset: no genMethod field. */
  readonly twitterLayout: ContainerModule;
}

/**
 * The setup of a mode module's specs (`embeddedModeModule`, `serverModeModule`...): id services
 * composed with a fixed clock and no log, each closed after its test. Call it in a `describe`
 * or at the top level of a `*.spec.ts` file: it registers the `afterEach` that closes them.
 */
export function modeModuleServices(): ModeModuleServices {
  const clock = (): number => Date.UTC(2026, 2, 3);
  const open: IdService[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((service) => service.close()));
  });
  return {
    async build(options, ...modules) {
      const service = await createIdService(
        { ...options, clock, logger: silentLogger },
        ...modules,
      );
      open.push(service);
      return service;
    },
    twitterLayout: new ContainerModule(({ rebindSync }) => {
      rebindSync(TOKENS.IdMeta).toConstantValue(layoutPreset('twitter').layout);
    }),
  };
}
