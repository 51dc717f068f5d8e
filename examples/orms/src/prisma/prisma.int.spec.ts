import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INT8_ID } from '../testing/MAX_INT8_ID.js';
import { startOrmFixture, type OrmFixture } from '../testing/startOrmFixture.js';
import { PrismaClient } from './generated/client.js';
import { vestaIds } from './vestaIds.js';

const PACKAGE = resolve(import.meta.dirname, '../..');
const GENERATED = join(import.meta.dirname, 'generated');

async function filesUnder(dir: string): Promise<Map<string, string>> {
  const names = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
  return new Map(
    await Promise.all(
      names.map(async (name) => [name, await readFile(join(dir, name), 'utf8')] as const),
    ),
  );
}

function client(fixture: OrmFixture) {
  return new PrismaClient({
    adapter: new PrismaPg({ connectionString: fixture.postgres.url }),
  }).$extends(vestaIds(fixture.ids, { Order: { id: 'bigint' }, Event: { id: 'uuid' } }));
}

let fixture: OrmFixture;
let prisma: ReturnType<typeof client>;

beforeAll(async () => {
  fixture = await startOrmFixture(34);
  await fixture.ddl(`
    CREATE TABLE prisma_orders (id bigint PRIMARY KEY, customer text NOT NULL);
    CREATE TABLE prisma_events (id uuid PRIMARY KEY, name text NOT NULL);
  `);
  prisma = client(fixture);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await fixture?.dispose();
});

describe('Vesta ids in Prisma 7 (@prisma/adapter-pg, vestaIds extension)', () => {
  it('generates the id on create, above 2^53, and reads it back as that bigint', async () => {
    const created = await prisma.order.create({ data: { customer: 'ada' } });
    const read = await prisma.order.findUniqueOrThrow({ where: { id: created.id } });
    expect(created.id).toBeGreaterThan(2n ** 53n);
    expect(typeof read.id).toBe('bigint');
    expect(read.id).toBe(created.id);
    expect(fixture.ids.expId(read.id).machine).toBe(34);
  });

  it('writes and reads back 2^63 - 1, the largest bigint, exactly', async () => {
    await prisma.order.create({ data: { id: MAX_INT8_ID, customer: 'edge' } });
    const read = await prisma.order.findFirstOrThrow({ where: { customer: 'edge' } });
    expect(read.id).toBe(MAX_INT8_ID);
  });

  it('inserts a batch of 1000 rows (createMany) with unique ids, each read back exactly', async () => {
    const { count } = await prisma.order.createMany({
      data: Array.from({ length: 1000 }, (_, i) => ({ customer: `batch-${i}` })),
    });
    const read = await prisma.order.findMany({
      where: { customer: { startsWith: 'batch-' } },
      orderBy: { id: 'asc' },
    });
    expect(count).toBe(1000);
    expect(new Set(read.map((r) => r.id)).size).toBe(1000);
    expect(read.every((r) => typeof r.id === 'bigint')).toBe(true);
    expect(read.map((r) => r.id.toString())).toEqual(
      await fixture.idsAsText('prisma_orders', 'customer', 'batch-'),
    );
  });

  it('has its generated client current, generated with no download (the npm registry only)', async () => {
    const out = await mkdtemp(join(tmpdir(), 'vesta-prisma-'));
    try {
      // The schema as it is, beside an empty src/: its output lands in the same place under `out`.
      await mkdir(join(out, 'prisma'));
      await copyFile(join(PACKAGE, 'prisma/schema.prisma'), join(out, 'prisma/schema.prisma'));
      // A proxy that refuses every connection: a download attempt would fail the command.
      const offline = 'http://127.0.0.1:9';
      await promisify(execFile)(
        join(PACKAGE, 'node_modules/.bin/prisma'),
        ['generate', '--schema', join(out, 'prisma/schema.prisma')],
        {
          cwd: PACKAGE,
          env: {
            ...process.env,
            // Prisma's CLI fetches its schema engine at start, which `generate` does not use
            // (see the README): an existing file in its place skips the download.
            PRISMA_SCHEMA_ENGINE_BINARY: '/bin/false',
            CHECKPOINT_DISABLE: '1',
            HTTPS_PROXY: offline,
            HTTP_PROXY: offline,
            https_proxy: offline,
            http_proxy: offline,
          },
        },
      );
      expect(await filesUnder(join(out, 'src/prisma/generated'))).toEqual(
        await filesUnder(GENERATED),
      );
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it('stores a Vesta UUIDv7 in a uuid column and reads it back equal', async () => {
    const created = await prisma.event.createManyAndReturn({
      data: [{ name: 'created' }, { name: 'paid' }],
    });
    const read = await prisma.event.findMany({ orderBy: { id: 'asc' } });
    expect(read).toEqual(created);
    expect(read[0]?.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
