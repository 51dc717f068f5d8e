import type { IdService } from '@vesta/core';

/**
 * What `VestaModule` provides under `VESTA_ID_SERVICE`: the surface the embedded service and the
 * central server's client share (`IdService` of `@vesta/core`), with their named generators.
 */
export interface VestaIdService extends IdService {
  /**
   * The id service of a named generator (`default` is this service): UNKNOWN_GENERATOR for a
   * name not configured. Its `close()` does nothing; the module closes every name at shutdown.
   */
  generator(name: string): IdService;
}
