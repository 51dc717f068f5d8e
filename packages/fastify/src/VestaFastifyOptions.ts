import { VestaError, type IdService } from '@vesta/core';
import type { RestAppOptions, RestIdServiceOptions } from '@vesta/rest';

/**
 * Options of {@link vestaFastify}: the id service (exactly one of `service` and
 * `serviceOptions`), where the routes go (`prefix`), and the REST app's own options
 * (`authToken`, `scrambleKey`, `generators`, `segments`, `maxBatch`, `maxQueryLength`, `metrics`,
 * `logger`), as `createRestApp` takes them and checks them.
 */
export type VestaFastifyOptions = Omit<RestAppOptions, 'service'> & {
  /**
   * Where the routes are served: `''` (the root), or a path such as `/ids` (`/ids/genid`, ...),
   * under which an unknown path is Vesta's NOT_FOUND. Given to `register` as fastify's own
   * `prefix` is, with the same meaning.
   * @default ''
   */
  readonly prefix?: string;
} & (
    | {
        /**
         * The id service to publish (`createRestIdService`): genMethod 2, machine id 924-1023.
         * It stays the application's: the plugin never closes it.
         */
        readonly service: IdService;
        readonly serviceOptions?: never;
      }
    | {
        /**
         * Options of a service the plugin creates (`createRestIdService`) when it registers and
         * closes in fastify's `onClose` (the time mark persisted, the machine id released).
         */
        readonly serviceOptions: RestIdServiceOptions;
        readonly service?: never;
      }
  );

/** Where the service comes from: passed in, or created by the plugin. */
type ServiceSource =
  | { readonly service: IdService; readonly serviceOptions: undefined }
  | { readonly service: undefined; readonly serviceOptions: RestIdServiceOptions };

/** {@link VestaFastifyOptions} checked and split: the service's source, the prefix, the REST app's options. */
interface ResolvedVestaFastifyOptions {
  readonly source: ServiceSource;
  readonly prefix: string;
  readonly app: Readonly<Omit<RestAppOptions, 'service'>>;
}

const PREFIX = /^(\/[^/?#\s]+)*$/;

/**
 * Checks the plugin's own options (exactly one of `service` and `serviceOptions`, a `prefix` of
 * whole path segments) and splits them from the REST app's, which `createRestApp`'s rules check
 * next; INVALID_OPTIONS otherwise.
 */
export function resolveVestaFastifyOptions(
  options: VestaFastifyOptions,
): ResolvedVestaFastifyOptions {
  const { service, serviceOptions, prefix = '', ...app } = options;
  if ((service === undefined) === (serviceOptions === undefined)) {
    throw new VestaError(
      'INVALID_OPTIONS',
      'vestaFastify takes exactly one of service and serviceOptions',
    );
  }
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `prefix must be '' or a path of whole segments such as '/ids' (no trailing '/'), got ${JSON.stringify(prefix)}`,
    );
  }
  const source: ServiceSource =
    service === undefined
      ? { service, serviceOptions: serviceOptions as RestIdServiceOptions }
      : { service, serviceOptions: undefined };
  return Object.freeze({ source, prefix, app: Object.freeze(app) });
}
