import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { VestaHealthIndicator } from '@vesta/nestjs';

/** `GET /health`: 200 while ids can be issued, 503 with the reason's code otherwise. */
@Controller('health')
export class HealthController {
  readonly #health: HealthCheckService;
  readonly #vesta: VestaHealthIndicator;

  // Explicit tokens: the application does not depend on emitted decorator metadata.
  constructor(
    @Inject(HealthCheckService) health: HealthCheckService,
    @Inject(VestaHealthIndicator) vesta: VestaHealthIndicator,
  ) {
    this.#health = health;
    this.#vesta = vesta;
  }

  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    return this.#health.check([() => this.#vesta.isHealthy()]);
  }
}
