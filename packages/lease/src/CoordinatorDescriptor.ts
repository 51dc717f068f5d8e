import type { Logger } from '@vesta/core';
import type { ContainerModule } from 'inversify';
import type { LeaseAdmin, LeaseAllocation } from './LeaseAdmin.js';

/** The operators' side of a coordinator (`vesta machine-ids`): every store's {@link LeaseAdmin}. */
export type MachineIdAdmin = Pick<
  LeaseAdmin<LeaseAllocation>,
  'list' | 'release' | 'init' | 'history'
>;

/** What a server start gives a coordinator besides its URL. */
export interface CoordinatorContext {
  /** The instance key: `--coordinator-key`, else `host:port`. */
  readonly key: string;
  /** Whether the key was given: a URL's `?key=` then contradicts it; else the URL's wins. */
  readonly keyGiven?: boolean;
  readonly stateDir: string | undefined;
  readonly logger: Logger | undefined;
}

/**
 * A coordinator as a command line takes it (`--coordinator <url>`): its URL schemes, their form
 * and an example for help, and its machine-id module and admin of a URL, which its package reads.
 */
export interface CoordinatorDescriptor {
  /** Without the colon; each starts with the package's name (`redis`, `rediss`, `redis+sentinel`). */
  readonly schemes: readonly string[];
  readonly form: string;
  readonly example: string;
  /** The module binding the machine-id provider of `url`; INVALID_OPTIONS for bad options. */
  machineIdModule(url: string, context: CoordinatorContext): ContainerModule;
  admin(url: string): MachineIdAdmin;
}

/**
 * A {@link CoordinatorDescriptor} whose module gets the URL and the server's key, state dir and
 * logger, each only when given and the first two only when the URL's query does not set them.
 */
export function defineCoordinator(spec: {
  readonly schemes: readonly string[];
  readonly form: string;
  readonly example: string;
  module(options: {
    url: string;
    key?: string;
    stateDir?: string;
    logger?: Logger;
  }): ContainerModule;
  admin(options: { url: string }): MachineIdAdmin;
}): CoordinatorDescriptor {
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
