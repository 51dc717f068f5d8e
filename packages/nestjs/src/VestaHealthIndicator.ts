import { Inject, Injectable } from '@nestjs/common';
import { VESTA_ID_SERVICE } from './tokens.js';
import type { VestaIdService } from './VestaIdService.js';

/**
 * A `@nestjs/terminus` indicator result: `up` while the service can issue, `down` with the
 * service's error `code` and `message` otherwise (structurally terminus's `HealthIndicatorResult`).
 */
export type VestaHealthIndicatorResult<Key extends string = 'vesta'> = Record<
  Key,
  { readonly status: 'up' | 'down' } & Readonly<Record<string, unknown>>
>;

/**
 * The id service's health for `@nestjs/terminus`: `up` while it can issue (the lease held and
 * not fenced, the clock not behind, not closed; for the client, a server or the fallback
 * answering), `down` with the code (`MACHINE_ID_LEASE_LOST`, `SERVICE_CLOSED`,
 * `NO_SERVER_AVAILABLE`, ...) otherwise. It reads the service's `health()`: cheap, no I/O.
 *
 * @example
 * this.health.check([() => this.vesta.isHealthy()]); // 503 while down
 */
@Injectable()
export class VestaHealthIndicator {
  readonly #ids: VestaIdService;

  constructor(@Inject(VESTA_ID_SERVICE) ids: VestaIdService) {
    this.#ids = ids;
  }

  /** The service's health under `key`. @default key 'vesta' */
  isHealthy<const Key extends string = 'vesta'>(
    key: Key = 'vesta' as Key,
  ): VestaHealthIndicatorResult<Key> {
    const { ok, ...details } = this.#ids.health();
    return { [key]: { status: ok ? 'up' : 'down', ...details } } as VestaHealthIndicatorResult<Key>;
  }
}
