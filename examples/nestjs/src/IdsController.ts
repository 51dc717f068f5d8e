import { Controller, Get, Param, Query } from '@nestjs/common';
import { InjectVesta, type VestaIdService } from '@vesta/nestjs';

/** Ids over HTTP: always `id.toString()`, a decimal string; a JSON number would round ids above 2^53. */
@Controller('ids')
export class IdsController {
  readonly #ids: VestaIdService;

  constructor(@InjectVesta() ids: VestaIdService) {
    this.#ids = ids;
  }

  /** `{"id":"..."}`, or `{"ids":[...]}` with `?count=` */
  @Get()
  async next(@Query('count') count?: string): Promise<{ id: string } | { ids: string[] }> {
    if (count === undefined) return { id: (await this.#ids.genId()).toString() };
    return { ids: (await this.#ids.genIds(Number(count))).map(String) };
  }

  /** An id's fields, its date as an ISO string. */
  @Get(':id')
  decode(@Param('id') id: string): Record<string, number | string> {
    const fields = this.#ids.expId(id);
    return { ...fields, date: this.#ids.transTime(fields.time).toISOString() };
  }
}
