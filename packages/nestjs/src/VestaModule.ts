import { Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { createVestaIdService } from './createVestaIdService.js';
import { VESTA_ID_SERVICE, VESTA_MODULE_OPTIONS } from './tokens.js';
import { VestaHealthIndicator } from './VestaHealthIndicator.js';
import type { VestaIdService } from './VestaIdService.js';
import {
  resolveVestaModuleOptions,
  type VestaModuleAsyncOptions,
  type VestaModuleOptions,
} from './VestaModuleOptions.js';

/**
 * Provides one Vesta id service to the whole application (a global module: import it once, in
 * the root module) under `VESTA_ID_SERVICE` (`@InjectVesta()`), and `VestaHealthIndicator`.
 * The service starts with the application (its machine id acquired, a coordinator's lease
 * held) and closes at `onApplicationShutdown` (its time mark persisted, the lease released):
 * on `app.close()`, or on SIGTERM/SIGINT once `app.enableShutdownHooks()` was called.
 */
@Module({})
export class VestaModule implements OnApplicationShutdown {
  readonly #ids: VestaIdService;

  constructor(@Inject(VESTA_ID_SERVICE) ids: VestaIdService) {
    this.#ids = ids;
  }

  /**
   * The module with the service of `options`, checked here (INVALID_OPTIONS).
   *
   * @example
   * imports: [VestaModule.forRoot({ embedded: { machineId: 7 } })]
   */
  static forRoot(options: VestaModuleOptions): DynamicModule {
    const resolved = resolveVestaModuleOptions(options);
    return VestaModule.forRootAsync({ useFactory: () => resolved });
  }

  /**
   * The module with the service of the options `useFactory` returns, called with the
   * providers of `inject` (from `imports`).
   *
   * @example
   * VestaModule.forRootAsync({
   *   imports: [ConfigModule],
   *   inject: [ConfigService],
   *   useFactory: (config: ConfigService) => ({ embedded: { machineId: config.get('MACHINE_ID') } }),
   * })
   */
  static forRootAsync(options: VestaModuleAsyncOptions): DynamicModule {
    return {
      module: VestaModule,
      global: true,
      imports: options.imports ?? [],
      providers: [
        {
          provide: VESTA_MODULE_OPTIONS,
          useFactory: options.useFactory,
          inject: options.inject ?? [],
        },
        {
          provide: VESTA_ID_SERVICE,
          useFactory: createVestaIdService,
          inject: [VESTA_MODULE_OPTIONS],
        },
        VestaHealthIndicator,
      ],
      exports: [VESTA_ID_SERVICE, VestaHealthIndicator],
    };
  }

  /** Closes the service: persists its time mark and releases its machine id. */
  async onApplicationShutdown(): Promise<void> {
    await this.#ids.close();
  }
}
