import { Controller, Get, Inject, Param, Query, type INestApplication } from '@nestjs/common';
import type { ModuleMetadata } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { Test } from '@nestjs/testing';
import { InjectVesta } from '../InjectVesta.js';
import { VESTA_ID_SERVICE } from '../tokens.js';
import { VestaHealthIndicator } from '../VestaHealthIndicator.js';
import type { VestaIdService } from '../VestaIdService.js';

/** An application's controller: ids as decimal strings, never JSON numbers. */
@Controller('ids')
class IdsController {
  readonly #ids: VestaIdService;

  constructor(@InjectVesta() ids: VestaIdService) {
    this.#ids = ids;
  }

  @Get()
  async one(): Promise<{ id: string }> {
    return { id: (await this.#ids.genId()).toString() };
  }

  @Get('batch')
  async batch(@Query('count') count: string): Promise<{ ids: string[] }> {
    return { ids: (await this.#ids.genIds(Number(count))).map(String) };
  }

  /** An id sent back in, decoded: its machine and the id as the service read it. */
  @Get(':id')
  decode(@Param('id') text: string): { id: string; machine: number } {
    const id = this.#ids.parseId(text);
    return { id: id.toString(), machine: this.#ids.expId(id).machine };
  }
}

/** The terminus endpoint, with the module's indicator. */
@Controller('health')
class HealthController {
  readonly #health: HealthCheckService;
  readonly #vesta: VestaHealthIndicator;

  constructor(
    @Inject(HealthCheckService) health: HealthCheckService,
    @Inject(VestaHealthIndicator) vesta: VestaHealthIndicator,
  ) {
    this.#health = health;
    this.#vesta = vesta;
  }

  @Get()
  @HealthCheck()
  check(): Promise<unknown> {
    return this.#health.check([() => this.#vesta.isHealthy()]);
  }
}

/** A running Nest application and what the tests ask of it. */
export interface NestApp {
  readonly app: INestApplication;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The id service the module provides, as the controllers get it. */
  readonly ids: VestaIdService;
  /** GET `path`: the status, the body as sent and as parsed. */
  get(path: string): Promise<{ status: number; text: string; json: unknown }>;
}

/**
 * Test helper: a Nest application (platform-express) of `imports` with the controllers above,
 * listening on 127.0.0.1 and a port the system picks.
 */
export async function startNestApp(imports: ModuleMetadata['imports']): Promise<NestApp> {
  const moduleRef = await Test.createTestingModule({
    imports: [...(imports ?? []), TerminusModule.forRoot({ logger: false })],
    controllers: [IdsController, HealthController],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  return {
    app,
    url,
    ids: app.get<VestaIdService>(VESTA_ID_SERVICE),
    async get(path) {
      const response = await fetch(`${url}${path}`);
      const text = await response.text();
      return { status: response.status, text, json: JSON.parse(text) as unknown };
    },
  };
}
