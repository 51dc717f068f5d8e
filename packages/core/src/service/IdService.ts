import type { VestaErrorCode } from '../errors/errorCodes.js';
import type { Id, MakeIdFields } from '../codec/Id.js';
import type { IdConverterInfo } from '../codec/IdConverter.js';
import type { IdForm } from '../codec/IdForm.js';
import type { TimeBounds, TimeBoundsFilter } from '../codec/TimeBounds.js';
import type { IdType } from '../layout/IdType.js';
import type { PopulatorKind } from '../populator/IdPopulator.js';

/** What {@link IdService.info} reports: the layout (from the codec) and the issuer. */
export interface IdServiceInfo extends IdConverterInfo {
  readonly machine: number;
  readonly genMethod: number;
  readonly version: number;
  readonly populator: PopulatorKind;
  /** The largest count {@link IdService.genIds} accepts. */
  readonly maxBatch: number;
  /** The `maxLeadMs` option; present only when it is above 0. */
  readonly maxLeadMs?: number;
  /**
   * How far ahead of the wall clock the last time unit used starts, in ms (0 to `maxLeadMs`):
   * borrowed time not yet caught up. Present only when `maxLeadMs` is above 0.
   */
  readonly leadMs?: number;
}

/** Whether the service can issue ids now, and why not when it cannot. */
export type IdServiceHealth =
  | {
      readonly ok: true;
      /** As in {@link IdServiceInfo.leadMs}; present only when `maxLeadMs` is above 0. */
      readonly leadMs?: number;
    }
  | { readonly ok: false; readonly code: VestaErrorCode; readonly message: string };

/** The id service every mode offers: issue, decode, make, and turn times into dates. */
export interface IdService {
  /** One id. */
  genId(): Promise<bigint>;
  /** `count` ids (1 to `maxBatch`), claimed a unit's run at a time; strictly increasing. */
  genIds(count: number): Promise<bigint[]>;
  /**
   * One RFC 9562 version 7 UUID (canonical text) from the same claims as the ids: its time,
   * a per-unit counter and the machine id, so it is unique across the fleet by construction.
   * Strictly increasing within the issuer; `decodeUuid` reads it back. INVALID_OPTIONS for a
   * layout whose sequence is wider than 22 bits or machine id wider than 16.
   */
  genUuid(): Promise<string>;
  /** `count` UUIDs (1 to `maxBatch`), strictly increasing (see {@link genUuid}). */
  genUuids(count: number): Promise<string[]>;
  /**
   * Decodes an id of either type (the type is read from the id): a bigint, or a string in
   * `form` (decimal by default, Java's negative decimals included).
   */
  expId(id: bigint | string, form?: IdForm): Id;
  /** An id as text in `form` (`formatId`): decimal by default; hex, base32 and base62 sort as the ids do. */
  formatId(id: bigint, form?: IdForm): string;
  /** The id of text in `form` (`parseId`): decimal by default, Java's negative decimals included. */
  parseId(text: string | bigint, form?: IdForm): bigint;
  /** Encodes fields; each is range-checked, none defaults silently except to the service's own. */
  makeId(fields: MakeIdFields): bigint;
  /** The date a time field stands for, for the service's type or the one given. */
  transTime(time: number, type?: IdType): Date;
  /**
   * The ids of this service's layout and version (every genMethod unless `only` narrows) and
   * the UUIDv7s whose time falls in `[fromMs, toMs]` (Unix ms, inclusive): the bounds of
   * `WHERE id BETWEEN min AND max`, one range per genMethod in Vesta's layout (see
   * `IdConverter.timeBounds`).
   */
  timeBounds(fromMs: number, toMs: number, only?: TimeBoundsFilter): TimeBounds;
  info(): IdServiceInfo;
  health(): IdServiceHealth;
  /** Persists the high-water mark, releases the machine id; later calls fail with SERVICE_CLOSED. */
  close(): Promise<void>;
}

/** An id service that can also issue synchronously (populators 'sync' and 'atomic'). */
export interface SyncIdService extends IdService {
  /** One id, synchronously; busy-waits when a unit's sequence is used up. */
  genIdSync(): bigint;
}
