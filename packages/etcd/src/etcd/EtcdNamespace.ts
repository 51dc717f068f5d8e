import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { noop } from 'cockatiel';
import {
  EtcdLeaseInvalidError,
  type ICompare,
  type IKeyValue,
  type IRequestOp,
  type IResponseOp,
  type ITxnRequest,
  type ITxnResponse,
} from 'etcd3';
import { withDeadline, type LeaseHolding } from '@vesta/lease';
import { EtcdClient, type RangeQuery, type RawKeyValue } from './EtcdClient.js';
import { KeepAliveStream } from './KeepAliveStream.js';

export interface EtcdStoreOptions {
  /** `http://host:port` endpoints. */
  readonly endpoints: readonly string[];
  readonly root: string;
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
}

/** An id's record; `writtenAtMs` is the writer's clock (etcd keeps no time). */
export interface IdRecordData extends LeaseHolding {
  readonly host?: string;
  readonly pid?: number;
  readonly writtenAtMs?: number;
}

/**
 * The era key. Writes compare its whole value (holding the era's UUID), never a revision:
 * revisions start again in an etcd that lost its data. `indexed`: created while no record
 * existed, so each record of the era has its key's `owners/<key>` entry; else a key the index
 * lacks is looked for in every record.
 */
export interface EtcdEra {
  readonly era: string;
  readonly open: boolean;
  readonly indexed: boolean;
  readonly value: Buffer;
}

/**
 * One read: the era key, a key's owner index entry, the ids of a window of the key order (from
 * `from` up to, not including, `to` or the end) and single ids; every id with neither.
 */
export interface ClaimRead {
  readonly era?: boolean;
  readonly indexOf?: string;
  readonly window?: { readonly from: string; readonly to: string | undefined };
  readonly ids?: readonly number[];
}

export interface ClaimReadResult {
  readonly era: EtcdEra | undefined;
  /** The id the owner index names for the key. */
  readonly indexed: number | undefined;
  readonly rows: EtcdIdRow[];
}

/** A start's etcd leases: `live` (TTL the fence) and `recent` (TTL the reclaim delay). */
export interface HeldLeases {
  readonly live: string;
  readonly recent: string;
}

/** The TTL of a live lease: the fence, but at least etcd's minimum of 2 s. */
export const liveTtlMs = (fenceAfterMs: number): number => Math.max(2000, fenceAfterMs);

/** Whether a request failed because etcd no longer knows a lease it named. */
export const isLeaseExpired = (error: unknown): boolean => error instanceof EtcdLeaseInvalidError;

const text = (value: string): Buffer => Buffer.from(value, 'utf8');
const NONE = Buffer.alloc(0);

/** Holds while `key` does not exist (for a range: no key in it does). */
const absent = (key: Buffer): ICompare => ({
  key,
  target: 'Create',
  result: 'Equal',
  create_revision: 0,
});

const at = (key: Buffer, revision: string): ICompare => ({
  key,
  target: 'Mod',
  result: 'Equal',
  mod_revision: revision,
});

/** The end of the range of every key starting with `prefix`. */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  end[end.length - 1] = (end[end.length - 1] ?? 0) + 1;
  return end;
}

function decodeRecord(value: Buffer): IdRecordData | undefined {
  try {
    const v = JSON.parse(value.toString('utf8')) as Partial<IdRecordData>;
    if (
      (v.owner === null || typeof v.owner === 'string') &&
      (v.instance === null || typeof v.instance === 'string') &&
      Number.isSafeInteger(v.markMs) &&
      Number.isInteger(v.genMethod) &&
      Number.isInteger(v.type)
    ) {
      return v as IdRecordData;
    }
  } catch {
    // a foreign or torn value is no record
  }
  return undefined;
}

/** The machine id at the end of `key` past `prefixBytes`, written as ids are (no sign, no leading zero). */
function idOf(key: Buffer, prefixBytes: number): number | undefined {
  const digits = key.toString('latin1', prefixBytes);
  if (!/^(0|[1-9][0-9]{0,3})$/.test(digits)) return undefined;
  const id = Number(digits);
  return id <= 1023 ? id : undefined;
}

/** One id as a read finds it; `live` and `recent` tell whether those keys exist (etcd's clock). */
export class EtcdIdRow {
  #data: IdRecordData | undefined | null = null;

  constructor(
    readonly machineId: number,
    private readonly kv: RawKeyValue,
    readonly live: boolean,
    readonly recent: boolean,
    private readonly named: (key: string) => Buffer,
  ) {}

  /** Decoded when first asked; undefined when unreadable (never guessed). */
  get data(): IdRecordData | undefined {
    if (this.#data === null) this.#data = decodeRecord(this.kv.value);
    return this.#data;
  }

  /** False when the record certainly does not name `key` (told without decoding it). */
  mayName(key: string): boolean {
    return this.kv.value.includes(this.named(key));
  }

  /** The key its record names (null: released); undefined when unreadable. */
  get owner(): string | null | undefined {
    return this.data?.owner;
  }

  get modRevision(): string {
    return this.kv.modRevision.toString();
  }
}

/**
 * A fleet's keys in etcd, each operation one request or transaction: `era`, `ids/<id>` (the
 * record), `live/<id>` (under the holder's live lease: a claim requires it absent),
 * `recent/<id>` (under a lease of the reclaim delay: a dead owner's id is reclaimable once etcd
 * expired it), `owners/<key>` (the id a stable key holds) and `history/` (the journal).
 */
export class EtcdNamespace {
  readonly root: string;
  readonly #o: EtcdStoreOptions;
  #client: EtcdClient;
  /** A fleet's starts spread over the members. */
  #member: number;
  readonly #host = hostname();
  #keeper: KeepAliveStream | undefined;

  constructor(options: EtcdStoreOptions) {
    this.#o = options;
    this.root = options.root;
    this.#member = Math.floor(Math.random() * options.endpoints.length);
    this.#client = this.#open();
  }

  #open(): EtcdClient {
    const { endpoints } = this.#o;
    return new EtcdClient({
      // One member at a time: a failing request moves the client to the next (reconnect).
      hosts: [endpoints[this.#member % endpoints.length] ?? ''],
      dialTimeout: this.#o.connectTimeoutMs,
      // The lease's own loop retries on its schedule: no retry, no breaker here.
      faultHandling: { host: () => noop, global: noop },
      grpcOptions: {
        // A connection of this client's own (grpc shares one between channels of equal options):
        // a client replacing a stuck one never reuses its connection.
        'grpc.use_local_subchannel_pool': 0,
        'vesta.etcd.client': randomUUID(),
        'grpc.initial_reconnect_backoff_ms': 100,
        'grpc.max_reconnect_backoff_ms': 1000,
      },
    });
  }

  /** A new client on the next member: a connection stuck behind a partition is never reused. */
  reconnect(): void {
    this.close();
    this.#member++;
    this.#client = this.#open();
  }

  /** `work` on this member, then on each next one while it fails. */
  async onAnyMember<T>(work: () => Promise<T>): Promise<T> {
    for (let tried = 1; ; tried++) {
      try {
        return await work();
      } catch (error) {
        if (tried >= this.#o.endpoints.length) throw error;
        this.reconnect();
      }
    }
  }

  close(): void {
    this.#keeper?.end();
    this.#keeper = undefined;
    this.#client.close();
  }

  /** `work` on this client within the operation timeout, whatever the client does. */
  request<T>(work: (client: EtcdClient, call: { deadline: number }) => Promise<T>): Promise<T> {
    const ms = this.#o.operationTimeoutMs;
    const call = { deadline: Date.now() + ms };
    return withDeadline(
      work(this.#client, call),
      ms,
      () => new Error(`etcd did not answer within ${ms} ms`),
    );
  }

  #txn(request: ITxnRequest): Promise<ITxnResponse> {
    return this.request((c, call) => c.kv.txn(request, call));
  }

  #key(path: string): Buffer {
    return text(`${this.root}/${path}`);
  }

  /** The era key's value, stamped with who wrote it; `indexed` only when true (as before it existed). */
  #eraValue(era: string, open: boolean, indexed: boolean): Buffer {
    const index = indexed ? { indexed } : {};
    return text(JSON.stringify({ era, open, ...index, host: this.#host, pid: process.pid }));
  }

  #eraOf(
    kv: Pick<IKeyValue, 'value' | 'mod_revision'> | RawKeyValue | undefined,
  ): EtcdEra | undefined {
    if (kv === undefined) return undefined;
    // A copy: the value may be a slice of a whole range response.
    const value = Buffer.from(kv.value);
    try {
      const v = JSON.parse(value.toString('utf8')) as Record<string, unknown>;
      if (typeof v.era === 'string') {
        return { era: v.era, open: v.open === true, indexed: v.indexed === true, value };
      }
    } catch {
      // unreadable: below
    }
    const revision = 'mod_revision' in kv ? kv.mod_revision : kv.modRevision.toString();
    return { era: `unreadable@${revision}`, open: false, indexed: false, value };
  }

  async readEra(): Promise<EtcdEra | undefined> {
    return (await this.read({ era: true, ids: [] })).era;
  }

  /**
   * Creates a closed era when there is none, indexed when no record exists either (a nested
   * transaction decides); returns whether it did and the era key as the transaction left it.
   */
  async createEra(
    era: string,
  ): Promise<{ readonly created: boolean; readonly after: EtcdEra | undefined }> {
    const indexed = this.#eraValue(era, false, true);
    const unindexed = this.#eraValue(era, false, false);
    const records = this.#key('ids/');
    const r = await this.#txn({
      compare: [absent(this.#key('era'))],
      success: [
        {
          request_txn: {
            compare: [{ ...absent(records), range_end: prefixEnd(records) }],
            success: [{ request_put: { key: this.#key('era'), value: indexed } }],
            failure: [{ request_put: { key: this.#key('era'), value: unindexed } }],
          },
        },
      ],
      failure: [{ request_range: { key: this.#key('era') } }],
    });
    if (!r.succeeded)
      return { created: false, after: this.#eraOf(r.responses[0]?.response_range.kvs[0]) };
    const whole = r.responses[0]?.response_txn.succeeded === true;
    return {
      created: true,
      after: { era, open: false, indexed: whole, value: whole ? indexed : unindexed },
    };
  }

  /** Creates the era OPEN only while no key lies under `<root>/`; else the first `limit` keys. */
  async initEra(
    era: string,
    limit: number,
  ): Promise<{ readonly created: true } | { readonly found: readonly string[] }> {
    const prefix = this.#key('');
    const range_end = prefixEnd(prefix);
    const r = await this.#txn({
      compare: [{ ...absent(prefix), range_end }],
      success: [{ request_put: { key: this.#key('era'), value: this.#eraValue(era, true, true) } }],
      failure: [{ request_range: { key: prefix, range_end, keys_only: true, limit } }],
    });
    if (r.succeeded) return { created: true };
    return {
      found: (r.responses[0]?.response_range.kvs ?? []).map((kv) => kv.key.toString('utf8')),
    };
  }

  /**
   * Opens the closed era `found` if it is still the one read; the era key as the transaction left
   * it, and what `also` reads (a start's first round), in the same transaction.
   */
  async openEra(
    found: EtcdEra,
    also?: ClaimRead,
  ): Promise<{ readonly era: EtcdEra | undefined; readonly also?: ClaimReadResult }> {
    const value = this.#eraValue(found.era, true, found.indexed);
    const read = also === undefined ? undefined : this.#claimRead(also);
    const reads = (read?.ranges ?? []).map((range) => ({ range }));
    const key = this.#key('era');
    const r = await this.request((c, call) =>
      c.txnRanges(
        {
          valueIs: { key, value: found.value },
          success: [{ put: { key, value } }, ...reads],
          failure: [{ range: { key, rangeEnd: NONE } }, ...reads],
        },
        call,
      ),
    );
    const [first, ...answers] = r.kvs;
    const era = r.succeeded ? { ...found, open: true, value } : this.#eraOf(first?.[0]);
    return { era, ...(read && { also: read.decode(answers) }) };
  }

  async readIds(): Promise<EtcdIdRow[]> {
    return (await this.read({})).rows;
  }

  /** What a claim round reads, in one transaction (one consistent read). */
  async read(q: ClaimRead): Promise<ClaimReadResult> {
    const { ranges, decode } = this.#claimRead(q);
    return decode(await this.request((c, call) => c.readRanges(ranges, call)));
  }

  #claimRead(q: ClaimRead) {
    const head: RangeQuery[] = [];
    if (q.era === true) head.push({ key: this.#key('era'), rangeEnd: NONE });
    if (q.indexOf !== undefined)
      head.push({ key: this.#key(`owners/${q.indexOf}`), rangeEnd: NONE });
    const ranges = (['ids', 'live', 'recent'] as const).map((sub) => {
      // The live and recent keys tell by their presence only.
      const keysOnly = sub !== 'ids';
      const prefix = this.#key(`${sub}/`);
      const w = q.window;
      const of: RangeQuery[] = (q.ids ?? []).map((id) => ({
        key: this.#key(`${sub}/${id}`),
        rangeEnd: NONE,
        keysOnly,
      }));
      if (w !== undefined) {
        const rangeEnd = w.to === undefined ? prefixEnd(prefix) : this.#key(`${sub}/${w.to}`);
        of.unshift({ key: this.#key(`${sub}/${w.from}`), rangeEnd, keysOnly });
      } else if (q.ids === undefined)
        of.push({ key: prefix, rangeEnd: prefixEnd(prefix), keysOnly });
      return of;
    });
    const decode = (answers: readonly RawKeyValue[][]): ClaimReadResult => {
      let next = 0;
      const era = q.era === true ? this.#eraOf(answers[next++]?.[0]) : undefined;
      const entry = q.indexOf === undefined ? undefined : answers[next++]?.[0];
      const [ids, live, recent] = ranges.map((of) => of.flatMap(() => answers[next++] ?? []));
      const indexed = entry && idOf(entry.value, 0);
      return { era, indexed, rows: this.#rowsOf(ids ?? [], live ?? [], recent ?? []) };
    };
    return { ranges: [...head, ...ranges.flat()], decode };
  }

  indexOp(key: string, machineId: number): IRequestOp {
    return { request_put: { key: this.#key(`owners/${key}`), value: text(String(machineId)) } };
  }

  /** The rows in id order, a record decoded only where a claim looks (a round may read thousands). */
  #rowsOf(
    ids: readonly RawKeyValue[],
    live: readonly RawKeyValue[],
    recent: readonly RawKeyValue[],
  ): EtcdIdRow[] {
    const flags = (kvs: readonly RawKeyValue[], sub: string): Uint8Array => {
      const prefix = Buffer.byteLength(`${this.root}/${sub}/`);
      const held = new Uint8Array(1024);
      for (const kv of kvs) {
        const id = idOf(kv.key, prefix);
        if (id !== undefined) held[id] = 1;
      }
      return held;
    };
    const [isLive, isRecent] = [flags(live, 'live'), flags(recent, 'recent')];
    const byId = new Array<EtcdIdRow | undefined>(1024);
    const prefix = Buffer.byteLength(`${this.root}/ids/`);
    let named: { readonly key: string; readonly json: Buffer } | undefined;
    const nameOf = (key: string): Buffer => {
      if (named?.key !== key) named = { key, json: Buffer.from(JSON.stringify(key)) };
      return named.json;
    };
    for (const kv of ids) {
      const id = idOf(kv.key, prefix);
      if (id !== undefined)
        byId[id] = new EtcdIdRow(id, kv, isLive[id] === 1, isRecent[id] === 1, nameOf);
    }
    return byId.filter((row): row is EtcdIdRow => row !== undefined);
  }

  /** Grants a lease of `ttlMs`, rounded up to whole seconds. */
  async grant(ttlMs: number): Promise<string> {
    const TTL = Math.max(1, Math.ceil(ttlMs / 1000));
    return (await this.request((c, call) => c.leaseClient.leaseGrant({ TTL, ID: 0 }, call))).ID;
  }

  /**
   * Keeps `leases` alive once on this client's keep-alive stream (opened again after it failed or
   * let a keep-alive time out); false for each that etcd says has expired.
   */
  async keepAliveAll(leases: readonly string[]): Promise<boolean[]> {
    let used: KeepAliveStream | undefined;
    try {
      return await this.request((c) => {
        if (this.#keeper?.usable !== true)
          this.#keeper = new KeepAliveStream(c.leaseClient.leaseKeepAlive());
        used = this.#keeper;
        return used.keepAlive(leases);
      });
    } catch (error) {
      used?.end(error);
      throw error;
    }
  }

  /** `held` kept alive (both on the stream, in one round trip), or granted anew where missing or expired. */
  async keepLeases(
    held: HeldLeases | undefined,
    o: { readonly fenceAfterMs: number; readonly reclaimAfterMs: number },
  ): Promise<HeldLeases> {
    const [live, recent] =
      held === undefined ? [] : await this.keepAliveAll([held.live, held.recent]);
    const [liveId, recentId] = await Promise.all([
      live === true && held ? held.live : this.grant(liveTtlMs(o.fenceAfterMs)),
      recent === true && held ? held.recent : this.grant(o.reclaimAfterMs),
    ]);
    return { live: liveId, recent: recentId };
  }

  async revoke(lease: string): Promise<void> {
    await this.request((c, call) => c.leaseClient.leaseRevoke({ ID: lease }, call));
  }

  #eraIs(era: EtcdEra): ICompare {
    return { key: this.#key('era'), target: 'Value', result: 'Equal', value: era.value };
  }

  /** The writes on one id's keys, each one transaction; a holder's compare its last write. */
  ofId(machineId: number) {
    const [id, live, recent] = ['ids', 'live', 'recent'].map((sub) =>
      this.#key(`${sub}/${machineId}`),
    ) as [Buffer, Buffer, Buffer];
    const txn = async (compare: ICompare[], success: IRequestOp[]) => {
      const r = await this.#txn({ compare, success });
      return r.succeeded ? r : undefined;
    };
    const record = (data: IdRecordData): IRequestOp => {
      const value = { ...data, host: this.#host, pid: process.pid, writtenAtMs: Date.now() };
      return { request_put: { key: id, value: text(JSON.stringify(value)) } };
    };
    const hold = (data: IdRecordData, leases: HeldLeases, instance: string): IRequestOp[] => [
      record(data),
      { request_put: { key: live, value: text(instance), lease: leases.live } },
      { request_put: { key: recent, value: NONE, lease: leases.recent } },
    ];
    const heldAt = (era: EtcdEra, written: string) => [this.#eraIs(era), at(id, written)];
    const under = (key: Buffer, lease: string): ICompare => ({
      key,
      target: 'Lease',
      result: 'Equal',
      lease,
    });
    const dropLive: IRequestOp = { request_delete_range: { key: live } };
    return {
      /**
       * Claims the id under the open era: the record unchanged since `read` (absent if never
       * used), no live key, for a reclaim no recent key; writes the record and both keys under
       * `leases`, then `also`. The new mod revision and the responses, or undefined: it lost.
       */
      claim: async (
        era: EtcdEra,
        read: string | undefined,
        reclaim: boolean,
        data: IdRecordData,
        leases: HeldLeases,
        instance: string,
        also: readonly IRequestOp[] = [],
      ): Promise<{ readonly revision: string; readonly responses: IResponseOp[] } | undefined> => {
        const compare = [
          this.#eraIs(era),
          absent(live),
          read === undefined ? absent(id) : at(id, read),
        ];
        if (reclaim) compare.push(absent(recent));
        const r = await txn(compare, [...hold(data, leases, instance), ...also]);
        return r && { revision: r.header.revision, responses: r.responses };
      },
      /**
       * The mark alone while both keys stand under `leases`, else (fresh leases, or a key deleted
       * by hand: missing, the id would look free) the mark and both keys. The new mod revision,
       * or undefined: the lease is lost.
       */
      renew: async (
        era: EtcdEra,
        written: string,
        data: IdRecordData,
        leases: HeldLeases,
        instance: string,
      ) => {
        const held = heldAt(era, written);
        const kept = [...held, under(live, leases.live), under(recent, leases.recent)];
        const r =
          (await txn(kept, [record(data)])) ?? (await txn(held, hold(data, leases, instance)));
        return r?.header.revision;
      },
      /** The final record written and the live key deleted (recent stays). */
      release: async (era: EtcdEra, written: string, data: IdRecordData) =>
        (await txn(heldAt(era, written), [record(data), dropLive])) !== undefined,
      /** The admin's: owner and instance cleared, live key deleted, if the record is at `read`. */
      adminRelease: async (read: string, data: IdRecordData) => {
        const released = text(JSON.stringify({ ...data, owner: null, instance: null }));
        const put = { request_put: { key: id, value: released } };
        return (await txn([at(id, read)], [put, dropLive])) !== undefined;
      },
    };
  }
}
