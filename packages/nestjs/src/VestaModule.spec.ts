import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { silentLogger } from '@vesta/core';
import { describe, expect, it } from 'vitest';
import { InjectVesta } from './InjectVesta.js';
import { VESTA_ID_SERVICE } from './tokens.js';
import type { VestaIdService } from './VestaIdService.js';
import { VestaModule } from './VestaModule.js';

@Injectable()
class Orders {
  readonly #ids: VestaIdService;

  constructor(@InjectVesta() ids: VestaIdService) {
    this.#ids = ids;
  }

  async nextId(): Promise<bigint> {
    return this.#ids.genId();
  }
}

/** A feature module that does not import VestaModule. */
@Module({ providers: [Orders], exports: [Orders] })
class OrdersModule {}

describe('VestaModule', () => {
  it('is global: a feature module that does not import it gets the one service of the root', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        VestaModule.forRoot({ embedded: { machineId: 21, logger: silentLogger } }),
        OrdersModule,
      ],
    }).compile();
    const app = await moduleRef.init();
    try {
      const id = await app.get(Orders).nextId();
      expect(app.get<VestaIdService>(VESTA_ID_SERVICE).expId(id).machine).toBe(21);
    } finally {
      await app.close();
    }
    expect(app.get<VestaIdService>(VESTA_ID_SERVICE).health()).toMatchObject({
      code: 'SERVICE_CLOSED',
    });
  });
});
