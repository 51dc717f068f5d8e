import type { IdService } from '@vesta/core';
import type { EntitySubscriberInterface, InsertEvent } from 'typeorm';

/**
 * A TypeORM subscriber that gives every inserted entity (`save`, `insert`, one or many) a Vesta
 * id in each primary column the database does not generate and the entity leaves undefined: a
 * `bigint` column ({@link VestaIdColumn}) gets `genId()`, a `uuid` column a UUIDv7 (`genUuid()`).
 * TypeORM's `subscribers` option builds subscribers without arguments, so this one is added to
 * the started data source.
 *
 * @example
 * await dataSource.initialize();
 * dataSource.subscribers.push(new VestaIdSubscriber(ids));
 */
export class VestaIdSubscriber implements EntitySubscriberInterface {
  constructor(private readonly ids: Pick<IdService, 'genId' | 'genUuid'>) {}

  async beforeInsert(event: InsertEvent<unknown>): Promise<void> {
    const entity = event.entity as object | undefined;
    if (entity === undefined) return;
    for (const column of event.metadata.primaryColumns) {
      if (column.isGenerated || column.getEntityValue(entity) !== undefined) continue;
      if (column.type === 'bigint') column.setEntityValue(entity, await this.ids.genId());
      else if (column.type === 'uuid') column.setEntityValue(entity, await this.ids.genUuid());
    }
  }
}
