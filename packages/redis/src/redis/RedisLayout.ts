/**
 * The keys of one fleet, all under the hash tag `{prefix}` (one cluster slot):
 * - `{prefix}:era` hash `token`, `open`: the allocation era (gone when Redis lost its data);
 * - `{prefix}:ids` set: every machine id that has a record;
 * - `{prefix}:id:<n>` hash: the record (owner, instance, markMs, touchedMs, version, ...), kept;
 * - `{prefix}:live:<n>` string with PX expiry: the holding instance while its lease runs;
 * - `{prefix}:key:<key>` string: the id a stable key holds;
 * - `{prefix}:history` list: the lease journal, one JSON entry each, oldest first.
 */
export class RedisLayout {
  readonly prefix: string;
  readonly era: string;
  readonly ids: string;
  readonly history: string;
  readonly #base: string;

  constructor(prefix: string) {
    this.prefix = prefix;
    this.#base = `{${prefix}}`;
    this.era = `${this.#base}:era`;
    this.ids = `${this.#base}:ids`;
    this.history = `${this.#base}:history`;
  }

  id(machineId: number): string {
    return `${this.#base}:id:${machineId}`;
  }

  live(machineId: number): string {
    return `${this.#base}:live:${machineId}`;
  }

  key(key: string): string {
    return `${this.#base}:key:${key}`;
  }
}
