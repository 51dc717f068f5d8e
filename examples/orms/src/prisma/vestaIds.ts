import { Prisma } from '@prisma/client/extension';
import type { IdService } from '@vesta/core';

/**
 * What {@link vestaIds} fills, per model (its name in the schema, `Order`): each field and its
 * kind, `'bigint'` (a `BigInt` field, a Vesta id) or `'uuid'` (a `String @db.Uuid` field, a
 * Vesta UUIDv7).
 */
export type VestaIdFields = Readonly<Record<string, Readonly<Record<string, 'bigint' | 'uuid'>>>>;

type Data = Record<string, unknown>;

/**
 * A Prisma client extension that gives every row of `create`, `createMany`,
 * `createManyAndReturn` and the create branch of `upsert` a Vesta id (or UUIDv7) in each field
 * `fields` names when the data leaves it out: one `genIds`/`genUuids` call per batch. Prisma reads
 * a `BigInt` field as a JavaScript `bigint` itself. Rows created nested in another model's write
 * are not filled (give them an id).
 *
 * @example
 * const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString }) }).$extends(
 *   vestaIds(ids, { Order: { id: 'bigint' }, Event: { id: 'uuid' } }),
 * );
 * await prisma.order.create({ data: { customer: 'ada' } }); // { id: 65443541970583559n, ... }
 */
export function vestaIds(ids: Pick<IdService, 'genIds' | 'genUuids'>, fields: VestaIdFields) {
  async function filled<T extends Data | Data[] | undefined>(model: string, data: T): Promise<T> {
    const modelFields = fields[model];
    if (modelFields === undefined || data === undefined) return data;
    const rows = Array.isArray(data) ? data : [data];
    const out = rows.map((row) => ({ ...row }));
    for (const [field, kind] of Object.entries(modelFields)) {
      const missing = out.filter((row) => row[field] === undefined);
      if (missing.length === 0) continue;
      const fresh =
        kind === 'bigint' ? await ids.genIds(missing.length) : await ids.genUuids(missing.length);
      missing.forEach((row, i) => (row[field] = fresh[i]));
    }
    return (Array.isArray(data) ? out : out[0]) as T;
  }

  return Prisma.defineExtension({
    name: 'vesta-ids',
    query: {
      $allModels: {
        async create({ model, args, query }) {
          return query({
            ...args,
            data: (await filled(model, args.data as Data)) as typeof args.data,
          });
        },
        async createMany({ model, args, query }) {
          return query({
            ...args,
            data: (await filled(model, args.data as Data | Data[])) as typeof args.data,
          });
        },
        async createManyAndReturn({ model, args, query }) {
          return query({
            ...args,
            data: (await filled(model, args.data as Data | Data[])) as typeof args.data,
          });
        },
        async upsert({ model, args, query }) {
          return query({
            ...args,
            create: (await filled(model, args.create as Data)) as typeof args.create,
          });
        },
      },
    },
  });
}
