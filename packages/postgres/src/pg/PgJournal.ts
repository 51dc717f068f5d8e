import {
  decodeJournalEntry,
  encodeJournalEntry,
  type LeaseJournal,
  type LeaseJournalEntry,
} from '@vesta/lease';
import type pg from 'pg';
import { isCatalogRace, isPgError, PG, type PgTable } from './PgTable.js';

/**
 * The lease journal: a table `<table>_history` beside the allocation table (`id` bigserial,
 * `entry` the JSON text), made with it (`ensure`, before a start's first claim: a claim's append
 * must not wait on the catalog). Each append is one statement that inserts
 * the entry and deletes those more than `retention` ids older.
 */
export class PgJournal {
  readonly name: string;
  readonly #schema: string;

  constructor(table: PgTable) {
    this.#schema = table.schema;
    this.name = `"${table.schema}"."${table.table}_history"`;
  }

  /** The journal of a store's sessions, keeping the newest `retention` entries. */
  writer(db: pg.Pool, retention: number): LeaseJournal {
    const append = (entry: LeaseJournalEntry) =>
      db.query(
        `WITH added AS (INSERT INTO ${this.name} (entry) VALUES ($1) RETURNING id)
         DELETE FROM ${this.name} WHERE id <= (SELECT id FROM added) - $2`,
        [encodeJournalEntry(entry), retention],
      );
    return {
      append: async (entry) => {
        try {
          await append(entry);
        } catch (error) {
          if (!isPgError(error, PG.UNDEFINED_TABLE)) throw error;
          await this.#create(db);
          await append(entry);
        }
      },
    };
  }

  /** Every entry kept, oldest first; none when the table does not exist. */
  async read(db: pg.Pool): Promise<LeaseJournalEntry[]> {
    try {
      const r = await db.query<{ entry: string }>(`SELECT entry FROM ${this.name} ORDER BY id`);
      return r.rows.flatMap((row) => decodeJournalEntry(row.entry) ?? []);
    } catch (error) {
      if (isPgError(error, PG.UNDEFINED_TABLE, PG.INVALID_SCHEMA)) return [];
      throw error;
    }
  }

  /** Creates the table when missing (a table made before the journal existed has none). */
  async ensure(db: pg.Pool): Promise<void> {
    const r = await db.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [
      this.name,
    ]);
    if (r.rows[0]?.t == null) await this.#create(db);
  }

  async #create(db: pg.Pool): Promise<void> {
    try {
      await db.query(`CREATE SCHEMA IF NOT EXISTS "${this.#schema}"`);
      await db.query(
        `CREATE TABLE IF NOT EXISTS ${this.name} (id bigserial PRIMARY KEY, entry text NOT NULL)`,
      );
    } catch (error) {
      // Concurrent first appends race on the catalog: the loser finds the table made.
      if (!isCatalogRace(error)) throw error;
    }
  }
}
