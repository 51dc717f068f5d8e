import { uuidText } from '@vesta/core/kit';

/** One value of the audited column, read from its text: a 64-bit id or a 128-bit UUID. */
export interface AuditedId {
  readonly kind: 'id' | 'uuid';
  /** The id (0 to 2^64-1), or the UUID's 128 bits. */
  readonly value: bigint;
  /** When it was issued, in Unix ms: an id's time field, a v7 UUID's; undefined for other UUIDs. */
  readonly unixMs: number | undefined;
  /** The issuer's machine id (ids, Vesta UUIDv7s); undefined for other UUIDs. */
  readonly machine: number | undefined;
  /** The issuer's genMethod (ids, Vesta UUIDv7s; 0 in layouts without the field). */
  readonly genMethod: number | undefined;
  /** The time unit of `unixMs` (an id's type: 1000 for seconds). @default 1 */
  readonly unitMs?: number;
}

/** A value as the report writes it: an id as its decimal string, a UUID canonical. */
export function auditedIdText(kind: AuditedId['kind'], value: bigint): string {
  return kind === 'id' ? value.toString() : uuidText(value);
}
