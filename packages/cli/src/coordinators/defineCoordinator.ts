import { importOptional } from '@vesta/core/kit';
import type { ContainerModule } from 'inversify';
import type { Coordinator, MachineIdAdmin, ProviderContext } from './Coordinator.js';
import { definedOnly } from './definedOnly.js';

/**
 * What a coordinator says of itself: its URL forms, how it reads one, and how its package
 * (imported only when a URL names it) builds its machine-id module and admin.
 */
export interface CoordinatorSpec<O, P> {
  readonly schemes: readonly string[];
  readonly form: string;
  readonly example: string;
  /** The URL → the options its provider and admin share (INVALID_OPTIONS when malformed). */
  parse(url: string): O;
  /** The coordinator's package, as npm names it. */
  readonly package: string;
  /** Imports the coordinator's package. */
  load(): Promise<P>;
  /** The package's machine-id module (`redisMachineIdModule(options)`...): it checks the options. */
  module(pkg: P, options: O & ReturnType<typeof definedOnly<ProviderContext>>): ContainerModule;
  admin(pkg: P, options: O): MachineIdAdmin;
}

/**
 * A {@link Coordinator} from its spec: the module gets the URL's options plus the server's
 * key, state dir and logger (each only when given, and the first two only when the URL's query
 * does not set them). The URL is read at once; the package is
 * imported on first use.
 */
export function defineCoordinator<O, P>(spec: CoordinatorSpec<O, P>): Coordinator {
  const load = (): Promise<P> =>
    importOptional(spec.package, spec.load, `${spec.schemes[0]}:// coordinators need`);
  return {
    schemes: spec.schemes,
    form: spec.form,
    example: spec.example,
    machineIdModule: (url, context) => {
      // A key or state dir the URL's query sets (`?key=`) stands over the server's defaults; a
      // --coordinator-key that says otherwise is a contradiction (the package refuses it).
      const query = new URLSearchParams(/\?([^#]*)/.exec(url)?.[1] ?? '');
      const options = {
        ...spec.parse(url),
        ...definedOnly({
          key: query.has('key') && context.keyGiven !== true ? undefined : context.key,
          stateDir: query.has('stateDir') ? undefined : context.stateDir,
          logger: context.logger,
        }),
      };
      let built: Promise<ContainerModule> | undefined;
      return { load: () => (built ??= load().then((pkg) => spec.module(pkg, options))) };
    },
    admin: (url) => {
      const options = spec.parse(url);
      let built: Promise<MachineIdAdmin> | undefined;
      const admin = (): Promise<MachineIdAdmin> =>
        (built ??= load().then((pkg) => spec.admin(pkg, options)));
      return {
        list: async () => (await admin()).list(),
        release: async (machineId, flags) => (await admin()).release(machineId, flags),
        init: async () => (await admin()).init(),
        history: async (filter) => (await admin()).history(filter),
      };
    },
  };
}
