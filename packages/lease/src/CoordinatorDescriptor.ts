import { TOKENS, type Logger, type MachineIdProvider } from '@vesta/core';
import { ContainerModule } from 'inversify';
import type { LeaseAdmin, LeaseAllocation } from './LeaseAdmin.js';

/** The operators' side of a coordinator (`vesta machine-ids`): every store's {@link LeaseAdmin}. */
export type MachineIdAdmin = Pick<
  LeaseAdmin<LeaseAllocation>,
  'list' | 'release' | 'init' | 'history'
>;

/** What a server start gives a coordinator besides its URL. */
export interface CoordinatorContext {
  /** `--coordinator-key`, else `host:port`; when not `keyGiven`, a URL's `?key=` wins. */
  readonly key: string;
  readonly keyGiven?: boolean;
  readonly stateDir: string | undefined;
  readonly logger: Logger | undefined;
}

/** A coordinator as a command line takes it (`--coordinator <url>`). */
export interface CoordinatorDescriptor {
  /** Without the colon (`redis`, `rediss`, `redis+sentinel`). */
  readonly schemes: readonly string[];
  readonly form: string;
  readonly example: string;
  /** INVALID_OPTIONS for bad options. */
  machineIdModule(url: string, context: CoordinatorContext): ContainerModule;
  admin(url: string): MachineIdAdmin;
}

/** A {@link CoordinatorDescriptor}; the key and state dir go to it unless the URL sets them. */
export function defineCoordinator(
  spec: Pick<CoordinatorDescriptor, 'schemes' | 'form' | 'example'> & {
    module(options: {
      url: string;
      key?: string;
      stateDir?: string;
      logger?: Logger;
    }): ContainerModule;
    admin(options: { url: string }): MachineIdAdmin;
  },
): CoordinatorDescriptor {
  const { module, admin, ...described } = spec;
  return {
    ...described,
    machineIdModule(url, { key, keyGiven, stateDir, logger }) {
      const query = new URLSearchParams(/\?([^#]*)/.exec(url)?.[1] ?? '');
      return module({
        url,
        ...(query.has('key') && keyGiven !== true ? {} : { key }),
        ...(query.has('stateDir') || stateDir === undefined ? {} : { stateDir }),
        ...(logger === undefined ? {} : { logger }),
      });
    },
    admin: (url) => admin({ url }),
  };
}

/** Binds `TOKENS.MachineIdProvider` (containers loading it share the key: one per service). */
export function machineIdProviderModule(provider: MachineIdProvider): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<MachineIdProvider>(TOKENS.MachineIdProvider).toConstantValue(provider);
  });
}
