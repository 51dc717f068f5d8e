import type { MachineIdProvider } from '@vesta/core';
import type { Coordinator, MachineIdAdmin, ProviderContext } from './Coordinator.js';
import { definedOnly } from './definedOnly.js';

/** What a coordinator says of itself: its URL forms, how it reads one, its provider and admin. */
export interface CoordinatorSpec<O> {
  readonly schemes: readonly string[];
  readonly form: string;
  readonly example: string;
  /** The URL → the options its provider and admin share (INVALID_OPTIONS when malformed). */
  parse(url: string): O;
  provider(options: O & ReturnType<typeof definedOnly<ProviderContext>>): MachineIdProvider;
  admin(options: O): MachineIdAdmin;
}

/**
 * A {@link Coordinator} from its spec: the provider gets the URL's options plus the server's
 * key, state dir and logger (each only when given).
 */
export function defineCoordinator<O>(spec: CoordinatorSpec<O>): Coordinator {
  return {
    schemes: spec.schemes,
    form: spec.form,
    example: spec.example,
    provider: (url, context) =>
      spec.provider({
        ...spec.parse(url),
        ...definedOnly({ key: context.key, stateDir: context.stateDir, logger: context.logger }),
      }),
    admin: (url) => spec.admin(spec.parse(url)),
  };
}
