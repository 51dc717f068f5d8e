import type { VestaErrorCode } from '../errors/errorCodes.js';
import type { Id, IdConverterInfo, MakeIdFields } from '../codec/IdConverter.js';
import type { TimeBounds, TimeBoundsFilter } from '../codec/IdConverter.js';
import type { IdForm } from '../codec/IdForm.js';
import type { IdType } from '../layout/IdType.js';
import type { PopulatorKind } from '../populator/IdPopulator.js';

/** What {@link IdService.info} reports: the layout (from the codec) and the issuer. */
export interface IdServiceInfo extends IdConverterInfo {
  readonly machine: number;
  readonly genMethod: number;
  readonly version: number;
  readonly populator: PopulatorKind;
  readonly maxBatch: number;
  /** Present only when above 0. */
  readonly maxLeadMs?: number;
  /** How far (0 to `maxLeadMs`) ahead of the clock the last unit used starts; with `maxLeadMs`. */
  readonly leadMs?: number;
}

/** Whether the service can issue ids now, and why not when it cannot. */
export type IdServiceHealth =
  | { readonly ok: true; /** As in {@link IdServiceInfo.leadMs}. */ readonly leadMs?: number }
  | { readonly ok: false; readonly code: VestaErrorCode; readonly message: string };

/** The id service every mode offers: issue, decode, make, and turn times into dates. */
export interface IdService {
  genId(): Promise<bigint>;
  /** `count` ids (1 to `maxBatch`), claimed a unit's run at a time; strictly increasing. */
  genIds(count: number): Promise<bigint[]>;
  /** One RFC 9562 UUIDv7 from the ids' claims; INVALID_OPTIONS for a sequence over 22 bits or machine id over 16. */
  genUuid(): Promise<string>;
  /** `count` UUIDs (1 to `maxBatch`), strictly increasing. */
  genUuids(count: number): Promise<string[]>;
  /** Decodes an id of either type: a bigint, or a string in `form` (see `parseId`). */
  expId(id: bigint | string, form?: IdForm): Id;
  /** An id as text in `form` (see `formatId`). */
  formatId(id: bigint, form?: IdForm): string;
  /** The id of text in `form` (see `parseId`). */
  parseId(text: string | bigint, form?: IdForm): bigint;
  /** Encodes fields, each range-checked; absent ones are the service's own. */
  makeId(fields: MakeIdFields): bigint;
  /** The date a time field stands for, for the service's type or the one given. */
  transTime(time: number, type?: IdType): Date;
  /** The ids (of this version) and UUIDs of the window `[fromMs, toMs]`: see `IdConverter.timeBounds`. */
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

/** Hooks for metrics: the REST and TCP servers count these. Every hook is optional. */
export interface IdServiceObserver {
  /** The clock stepped back by `behindMs` and the step was absorbed (within tolerance). */
  onClockRollback?(behindMs: number): void;
  /** A time unit's sequence was used up; the caller waits for the next unit. */
  onSequenceExhausted?(): void;
  /** With `maxLeadMs`: a unit starting at `unitStartMs` was opened before the clock reached it. */
  onTimeBorrowed?(unitStartMs: number): void;
}
