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

/** How the store connects. */
export interface EtcdStoreOptions {
  /** `http://host:port` endpoints. */
  readonly endpoints: readonly string[];
  /** The key prefix of the fleet, without a trailing slash. */
  readonly root: string;
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
}

/** An id's record (`<root>/ids/<id>`), as written by its holder: its holding, and who wrote it. */
export interface IdRecordData extends LeaseHolding {
  readonly host?: string;
  readonly pid?: number;
  /** When the record was written (Unix ms, the writer's clock: etcd keeps no time). */
  readonly writtenAtMs?: number;
}

/** One id as a claim round reads it. */
export interface EtcdIdRow {
  readonly machineId: number;
  /** The record, decoded when first read; undefined when unreadable (never guessed). */
  readonly data: IdRecordData | undefined;
  /** Whether the record may name `key` (false: it certainly does not), without decoding it. */
  mayName(key: string): boolean;
  /** The record's mod revision: a claim or renewal compares it. */
  readonly modRevision: string;
  /** A live key exists: held under a lease that has not expired (etcd's clock). */
  readonly live: boolean;
  /** A recent key exists: its holder renewed within the reclaim delay (etcd's clock). */
  readonly recent: boolean;
}

/**
 * The era key: its token, whether it is open, and its exact value. Writes compare the value, never
 * a revision: revisions start again in an etcd that lost its data and could match by chance,
 * while the value holds the era's UUID.
 */
export interface EtcdEra {
  readonly era: string;
  readonly open: boolean;
  /**
   * Whether the owner index is whole: the era was created while no record existed, so every
   * record of it was written with its key's `owners/<key>` entry (see {@link EtcdNamespace.read}).
   * False for an era of an earlier version, or created over records: a key the index lacks is
   * then looked for in every record.
   */
  readonly indexed: boolean;
  readonly value: Buffer;
}

/**
 * A window of the ids in key order: the keys from `<sub>/<from>` up to (not including)
 * `<sub>/<to>`, or to the end of `<sub>/` when `to` is undefined.
 */
export interface IdKeyWindow {
  readonly from: string;
  readonly to: string | undefined;
}

/** What one {@link EtcdNamespace.read} asks for, in one transaction. */
export interface ClaimRead {
  /** The era key too. */
  readonly era?: boolean;
  /** The owner index's entry of this key too. */
  readonly indexOf?: string;
  /** The ids of a window of the key order; with neither this nor `ids`, every id. */
  readonly window?: IdKeyWindow;
  /** These ids, each by its own keys. */
  readonly ids?: readonly number[];
}

/** What a {@link ClaimRead} read. */
export interface ClaimReadResult {
  /** The era key (undefined: none, or not asked). */
  readonly era: EtcdEra | undefined;
  /** The id the owner index names for the key (undefined: none, or not asked). */
  readonly indexed: number | undefined;
  readonly rows: EtcdIdRow[];
}

/** The leases an acquisition holds: `live` (TTL ≥ the fence), `recent` (TTL = reclaim delay). */
export interface HeldLeases {
  readonly live: string;
  readonly recent: string;
}

/**
 * The TTL of a live lease: the fence, but at least 2 s (etcd's minimum lease TTL with its default
 * election timeout; it would raise a shorter one anyway).
 */
export function liveTtlMs(fenceAfterMs: number): number {
  return Math.max(2000, fenceAfterMs);
}

/** Whether a request failed because etcd no longer knows a lease it named (expired, revoked). */
export function isLeaseExpired(error: unknown): boolean {
  return error instanceof EtcdLeaseInvalidError;
}

const text = (value: string): Buffer => Buffer.from(value, 'utf8');

/** A compare that holds while `key` does not exist (for a range: no key in it does). */
const absent = (key: Buffer): ICompare => ({
  key,
  target: 'Create',
  result: 'Equal',
  create_revision: 0,
});

/** A compare that holds while `key` was last changed at `revision`. */
const at = (key: Buffer, revision: string): ICompare => ({
  key,
  target: 'Mod',
  result: 'Equal',
  mod_revision: revision,
});

/** The end of the range of every key starting with `prefix`. */
function prefixEnd(prefix: Buffer): Buffer {
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

/** The machine id at the end of `key`, past its prefix of `prefixBytes` bytes, or undefined. */
function idOf(key: Buffer, prefixBytes: number): number | undefined {
  // Ids are written in ASCII digits, which latin1 reads as utf8 would; the prefix is skipped by
  // its length in bytes, not decoded.
  const digits = key.toString('latin1', prefixBytes);
  // Only as written: no sign, spaces, exponent or leading zero (Number would read '' as 0).
  if (!/^(0|[1-9][0-9]{0,3})$/.test(digits)) return undefined;
  const id = Number(digits);
  return id <= 1023 ? id : undefined;
}

/** One id of {@link EtcdNamespace.readIds}: its record decoded and its revision converted when asked. */
class IdRow implements EtcdIdRow {
  readonly machineId: number;
  readonly live: boolean;
  readonly recent: boolean;
  readonly #kv: RawKeyValue;
  /** How a record names a key (its JSON), shared by the rows of one read. */
  readonly #named: (key: string) => Buffer;
  #data: IdRecordData | undefined | null = null;

  constructor(
    machineId: number,
    kv: RawKeyValue,
    live: boolean,
    recent: boolean,
    named: (key: string) => Buffer,
  ) {
    this.machineId = machineId;
    this.#kv = kv;
    this.live = live;
    this.recent = recent;
    this.#named = named;
  }

  get data(): IdRecordData | undefined {
    if (this.#data === null) this.#data = decodeRecord(this.#kv.value);
    return this.#data;
  }

  /** A record naming `key` holds it as JSON writes it. */
  mayName(key: string): boolean {
    return this.#kv.value.includes(this.#named(key));
  }

  get modRevision(): string {
    return this.#kv.modRevision.toString();
  }
}

/**
 * The keys of a fleet in etcd and every operation on them, each a single request or transaction:
 * `<root>/era` (the allocation era), `<root>/ids/<id>` (the record: owner, holding instance,
 * mark), `<root>/live/<id>` (under the holder's live lease: at most one live holder, since a claim
 * requires it absent) and `<root>/recent/<id>` (under a lease whose TTL is the reclaim delay: a
 * dead owner's id is reclaimable once etcd has expired it). Time is etcd's: lease TTLs.
 */
export class EtcdNamespace {
  readonly root: string;
  readonly #o: EtcdStoreOptions;
  #client: EtcdClient;
  #member: number;
  /** This host's name in the records and the era key, asked once (a holder writes every renewal). */
  readonly #host = hostname();
  /** The client's keep-alive stream, once a lease was kept alive. */
  #keeper: KeepAliveStream | undefined;

  constructor(options: EtcdStoreOptions) {
    this.#o = options;
    this.root = options.root;
    // A fleet's starts spread over the members.
    this.#member = Math.floor(Math.random() * options.endpoints.length);
    this.#client = this.#open();
  }

  /** The member this client talks to now: `reconnect()` moves to the next. */
  get endpoint(): string {
    return this.#o.endpoints[this.#member % this.#o.endpoints.length] ?? '';
  }

  /** How many members the client may move through. */
  get members(): number {
    return this.#o.endpoints.length;
  }

  #open(): EtcdClient {
    return new EtcdClient({
      // One member at a time: a request that fails or hangs moves the client to the next member
      // (reconnect), where etcd3 would pick a member at random again, the silent one as likely.
      hosts: [this.endpoint],
      dialTimeout: this.#o.connectTimeoutMs,
      // The lease's own loop retries on its schedule; the client must not retry nor trip a breaker.
      faultHandling: { host: () => noop, global: noop },
      grpcOptions: {
        // One connection for this client's KV and lease calls, shared with no other client: grpc
        // pools a connection between channels of equal options only, and this key is the
        // client's own. A client opened to replace a stuck one so never reuses its connection,
        // and a start costs etcd one connection, not one per service.
        'grpc.use_local_subchannel_pool': 0,
        'vesta.etcd.client': randomUUID(),
        'grpc.initial_reconnect_backoff_ms': 100,
        'grpc.max_reconnect_backoff_ms': 1000,
      },
    });
  }

  /**
   * Closes the client and opens a new one on the next member: after a failed request, so a
   * connection stuck behind a partition, or a member that stopped answering, is never reused.
   */
  reconnect(): void {
    this.#endKeeper();
    this.#client.close();
    this.#member++;
    this.#client = this.#open();
  }

  /**
   * `work` on this member, and on each next one in turn while it fails: a start reaches the
   * cluster while any member answers. The last failure is thrown.
   */
  async onAnyMember<T>(work: () => Promise<T>): Promise<T> {
    for (let tried = 1; ; tried++) {
      try {
        return await work();
      } catch (error) {
        if (tried >= this.members) throw error;
        this.reconnect();
      }
    }
  }

  close(): void {
    this.#endKeeper();
    this.#client.close();
  }

  #endKeeper(): void {
    this.#keeper?.end();
    this.#keeper = undefined;
  }

  #call() {
    return { deadline: Date.now() + this.#o.operationTimeoutMs };
  }

  /** A request of another module (the journal) on this store's client, bounded like its own. */
  request<T>(work: (client: EtcdClient, call: { deadline: number }) => Promise<T>): Promise<T> {
    return this.#bounded((c) => work(c, this.#call()));
  }

  /**
   * `work` bounded by the operation timeout, whatever the client does (a stream on a black-holed
   * connection may never end on its own).
   */
  async #bounded<T>(work: (client: EtcdClient) => Promise<T>): Promise<T> {
    const ms = this.#o.operationTimeoutMs;
    const late = (): Error => new Error(`etcd did not answer within ${ms} ms`);
    return withDeadline(work(this.#client), ms, late);
  }

  get #era(): Buffer {
    return text(`${this.root}/era`);
  }
  #id(machineId: number): Buffer {
    return text(`${this.root}/ids/${machineId}`);
  }
  #live(machineId: number): Buffer {
    return text(`${this.root}/live/${machineId}`);
  }
  #recent(machineId: number): Buffer {
    return text(`${this.root}/recent/${machineId}`);
  }
  #owner(key: string): Buffer {
    return text(`${this.root}/owners/${key}`);
  }

  /** The era key's value, stamped with this host and process (who created or opened it). */
  #eraValue(era: string, open: boolean, indexed: boolean): Buffer {
    // `indexed` only when true: an era without it reads as not indexed, as an earlier version's.
    const index = indexed ? { indexed } : {};
    return text(JSON.stringify({ era, open, ...index, host: this.#host, pid: process.pid }));
  }

  #eraIs(era: EtcdEra): ICompare {
    return { key: this.#era, target: 'Value', result: 'Equal', value: era.value };
  }

  /** One transaction, bounded like every request. */
  #txn(request: ITxnRequest): Promise<ITxnResponse> {
    return this.#bounded((c) => c.kv.txn(request, this.#call()));
  }

  async readEra(): Promise<EtcdEra | undefined> {
    const r = await this.#bounded((c) => c.kv.range({ key: this.#era }, this.#call()));
    return this.#eraOf(r.kvs[0]);
  }

  /** The era key as read (undefined: there is none), by etcd3 or by {@link read}. */
  #eraOf(
    kv: Pick<IKeyValue, 'value' | 'mod_revision'> | RawKeyValue | undefined,
  ): EtcdEra | undefined {
    if (kv === undefined) return undefined;
    // A copy: the value may be a slice of a whole range response, which a lease keeps for life.
    const value = Buffer.from(kv.value);
    try {
      const v = JSON.parse(value.toString('utf8')) as {
        era?: unknown;
        open?: unknown;
        indexed?: unknown;
      };
      if (typeof v.era === 'string') {
        return { era: v.era, open: v.open === true, indexed: v.indexed === true, value };
      }
    } catch {
      // fall through
    }
    const revision = 'mod_revision' in kv ? kv.mod_revision : kv.modRevision.toString();
    return { era: `unreadable@${revision}`, open: false, indexed: false, value };
  }

  /**
   * Creates a closed era when there is none: indexed when no record exists either (see
   * {@link EtcdEra.indexed}; a nested transaction decides, in the same step). Returns whether it
   * did, and the era key as the transaction left it: the one created, or the one another start
   * created first (read in the same transaction, so that the caller need not read it again).
   */
  async createEra(
    era: string,
  ): Promise<{ readonly created: boolean; readonly after: EtcdEra | undefined }> {
    const indexed = this.#eraValue(era, false, true);
    const unindexed = this.#eraValue(era, false, false);
    const records = text(`${this.root}/ids/`);
    const r = await this.#txn({
      compare: [absent(this.#era)],
      success: [
        {
          request_txn: {
            compare: [{ ...absent(records), range_end: prefixEnd(records) }],
            success: [{ request_put: { key: this.#era, value: indexed } }],
            failure: [{ request_put: { key: this.#era, value: unindexed } }],
          },
        },
      ],
      failure: [{ request_range: { key: this.#era } }],
    });
    if (r.succeeded) {
      const whole = r.responses[0]?.response_txn.succeeded === true;
      const value = whole ? indexed : unindexed;
      return { created: true, after: { era, open: false, indexed: whole, value } };
    }
    return { created: false, after: this.#eraOf(r.responses[0]?.response_range.kvs[0]) };
  }

  /**
   * Creates the era `era` OPEN if and only if no key at all lies under `<root>/` (the admin's
   * declaration that the prefix is new), in one transaction: its compare spans the whole prefix
   * (every key's create revision 0, true only when there is none); when it fails, the same
   * transaction reads the first `limit` keys, which are returned.
   */
  async initEra(
    era: string,
    limit: number,
  ): Promise<{ readonly created: true } | { readonly found: readonly string[] }> {
    const prefix = text(`${this.root}/`);
    const range_end = prefixEnd(prefix);
    const r = await this.#txn({
      compare: [{ ...absent(prefix), range_end }],
      success: [{ request_put: { key: this.#era, value: this.#eraValue(era, true, true) } }],
      failure: [{ request_range: { key: prefix, range_end, keys_only: true, limit } }],
    });
    if (r.succeeded) return { created: true };
    const kvs = r.responses[0]?.response_range.kvs ?? [];
    return { found: kvs.map((kv) => kv.key.toString('utf8')) };
  }

  /**
   * Opens the closed era `found`, if it is still the one read. Returns the era key as the
   * transaction left it: opened, or as another start changed it (read in the same transaction);
   * and what `also` reads, read in the same transaction after it (a start's first claim round,
   * which then needs no request of its own once the era is open).
   */
  async openEra(
    found: EtcdEra,
    also?: ClaimRead,
  ): Promise<{ readonly era: EtcdEra | undefined; readonly also?: ClaimReadResult }> {
    const value = this.#eraValue(found.era, true, found.indexed);
    const read = also === undefined ? undefined : this.#claimRead(also);
    const reads = (read?.ranges ?? []).map((range) => ({ range }));
    const r = await this.#bounded((c) =>
      c.txnRanges(
        {
          valueIs: { key: this.#era, value: found.value },
          success: [{ put: { key: this.#era, value } }, ...reads],
          failure: [{ range: { key: this.#era, rangeEnd: Buffer.alloc(0) } }, ...reads],
        },
        this.#call(),
      ),
    );
    const [first, ...answers] = r.kvs;
    const era: EtcdEra | undefined = r.succeeded
      ? { era: found.era, open: true, indexed: found.indexed, value }
      : this.#eraOf(first?.[0]);
    return { era, ...(read === undefined ? {} : { also: read.decode(answers) }) };
  }

  /** Every id's record, live and recent flags (one consistent read: a single transaction). */
  async readIds(): Promise<EtcdIdRow[]> {
    return (await this.read({})).rows;
  }

  /**
   * What a claim round reads, in one transaction (one consistent read): the era key and a key's
   * owner index entry when asked, then the records and live and recent keys of a window of ids
   * and of single ids, or of every id.
   */
  async read(q: ClaimRead): Promise<ClaimReadResult> {
    const { ranges, decode } = this.#claimRead(q);
    return decode(await this.#bounded((c) => c.readRanges(ranges, this.#call())));
  }

  /** The ranges of `q`, and how their answers (in the same order) read. */
  #claimRead(q: ClaimRead): {
    readonly ranges: RangeQuery[];
    readonly decode: (answers: readonly RawKeyValue[][]) => ClaimReadResult;
  } {
    const head: RangeQuery[] = [];
    if (q.era === true) head.push({ key: this.#era, rangeEnd: Buffer.alloc(0) });
    if (q.indexOf !== undefined)
      head.push({ key: this.#owner(q.indexOf), rangeEnd: Buffer.alloc(0) });
    const subs = ['ids', 'live', 'recent'] as const;
    const ranges: RangeQuery[][] = subs.map((sub) => {
      // The live and recent keys tell by their presence only: their values stay in etcd.
      const keysOnly = sub !== 'ids';
      const prefix = text(`${this.root}/${sub}/`);
      const w = q.window;
      const of: RangeQuery[] = [];
      if (w !== undefined) {
        of.push({
          key: text(`${this.root}/${sub}/${w.from}`),
          rangeEnd: w.to === undefined ? prefixEnd(prefix) : text(`${this.root}/${sub}/${w.to}`),
          keysOnly,
        });
      }
      for (const id of q.ids ?? []) {
        of.push({ key: text(`${this.root}/${sub}/${id}`), rangeEnd: Buffer.alloc(0), keysOnly });
      }
      if (w === undefined && q.ids === undefined) {
        of.push({ key: prefix, rangeEnd: prefixEnd(prefix), keysOnly });
      }
      return of;
    });
    const decode = (answers: readonly RawKeyValue[][]): ClaimReadResult => {
      let at = 0;
      const next = (): RawKeyValue[] => answers[at++] ?? [];
      const era = q.era === true ? this.#eraOf(next()[0]) : undefined;
      const entry = q.indexOf === undefined ? undefined : next()[0];
      const indexed = entry === undefined ? undefined : idOf(entry.value, 0);
      const [ids, live, recent] = ranges.map((of) => of.flatMap(() => next()));
      return { era, indexed, rows: this.#rowsOf(ids ?? [], live ?? [], recent ?? []) };
    };
    return { ranges: [...head, ...ranges.flat()], decode };
  }

  /** The owner index entry naming `machineId` for `key`: a claim under a stable key writes it. */
  indexOp(key: string, machineId: number): IRequestOp {
    return { request_put: { key: this.#owner(key), value: text(String(machineId)) } };
  }

  /**
   * The rows of a read's records and live and recent keys: a fleet's round reads every id's
   * three keys, decoded as they came and converted only where the claim looks (see EtcdClient).
   */
  #rowsOf(
    ids: readonly RawKeyValue[],
    live: readonly RawKeyValue[],
    recent: readonly RawKeyValue[],
  ): EtcdIdRow[] {
    // Flags by id, and the records in id order: a fleet's round reads thousands of keys.
    const flags = (kvs: readonly RawKeyValue[], sub: string): Uint8Array => {
      const prefix = Buffer.byteLength(`${this.root}/${sub}/`);
      const held = new Uint8Array(1024);
      for (const kv of kvs) {
        const id = idOf(kv.key, prefix);
        if (id !== undefined) held[id] = 1;
      }
      return held;
    };
    const isLive = flags(live, 'live');
    const isRecent = flags(recent, 'recent');
    const byId: (IdRow | undefined)[] = new Array<IdRow | undefined>(1024);
    const prefix = Buffer.byteLength(`${this.root}/ids/`);
    // A round asks every row whether it names one key: encoded once, not once a row.
    let named: { readonly key: string; readonly json: Buffer } | undefined;
    const nameOf = (key: string): Buffer => {
      if (named?.key !== key) named = { key, json: Buffer.from(JSON.stringify(key)) };
      return named.json;
    };
    for (const kv of ids) {
      const machineId = idOf(kv.key, prefix);
      if (machineId === undefined) continue;
      byId[machineId] = new IdRow(
        machineId,
        kv,
        isLive[machineId] === 1,
        isRecent[machineId] === 1,
        nameOf,
      );
    }
    return byId.filter((row): row is IdRow => row !== undefined);
  }

  /** Grants a lease of `ttlMs` (rounded up to whole seconds; etcd may raise it to its minimum). */
  async grant(ttlMs: number): Promise<string> {
    const r = await this.#bounded((c) =>
      c.leaseClient.leaseGrant({ TTL: Math.max(1, Math.ceil(ttlMs / 1000)), ID: 0 }, this.#call()),
    );
    return r.ID;
  }

  /**
   * Keeps `leases` alive once, on this client's keep-alive stream (opened on first use, and
   * again after it failed or a keep-alive on it timed out); for each, false when etcd says it
   * has expired.
   */
  async keepAliveAll(leases: readonly string[]): Promise<boolean[]> {
    let used: KeepAliveStream | undefined;
    try {
      return await this.#bounded((c) => {
        if (this.#keeper?.usable !== true) {
          // No deadline: the stream serves every renewal of the client's life.
          this.#keeper = new KeepAliveStream(c.leaseClient.leaseKeepAlive());
        }
        used = this.#keeper;
        return used.keepAlive(leases);
      });
    } catch (error) {
      // A stream that let a keep-alive time out may be stuck: the next one opens another.
      used?.end(error);
      throw error;
    }
  }

  async revoke(lease: string): Promise<void> {
    await this.#bounded((c) => c.leaseClient.leaseRevoke({ ID: lease }, this.#call()));
  }

  /**
   * Claims `machineId` under the open era: the record unchanged since it was read (absent for a
   * never-used id), no live key, and for a reclaim no recent key. Writes the record and the live
   * and recent keys under the acquisition's leases, then `also` (the claim's journal entry) in the
   * same transaction. Returns the record's new mod revision and the transaction's responses, or
   * undefined when a concurrent start won or the era changed.
   */
  async claim(
    era: EtcdEra,
    machineId: number,
    read: string | undefined,
    reclaim: boolean,
    data: IdRecordData,
    leases: HeldLeases,
    instance: string,
    also: readonly IRequestOp[] = [],
  ): Promise<{ readonly revision: string; readonly responses: IResponseOp[] } | undefined> {
    const compare: ICompare[] = [
      this.#eraIs(era),
      absent(this.#live(machineId)),
      read === undefined ? absent(this.#id(machineId)) : at(this.#id(machineId), read),
    ];
    if (reclaim) compare.push(absent(this.#recent(machineId)));
    const r = await this.#txn({
      compare,
      success: [...this.#holdOps(machineId, data, leases, instance), ...also],
    });
    return r.succeeded ? { revision: r.header.revision, responses: r.responses } : undefined;
  }

  /** The put of an id's record as its holder writes it (who, and when by this host's clock). */
  #recordPut(machineId: number, data: IdRecordData): IRequestOp {
    const record = { ...data, host: this.#host, pid: process.pid, writtenAtMs: Date.now() };
    return { request_put: { key: this.#id(machineId), value: text(JSON.stringify(record)) } };
  }

  /** A holder's writes compare these: the era, and the record as this holder last wrote it. */
  #heldAt(era: EtcdEra, machineId: number, written: string): ICompare[] {
    return [this.#eraIs(era), at(this.#id(machineId), written)];
  }

  #holdOps(
    machineId: number,
    data: IdRecordData,
    leases: HeldLeases,
    instance: string,
  ): IRequestOp[] {
    return [
      this.#recordPut(machineId, data),
      { request_put: { key: this.#live(machineId), value: text(instance), lease: leases.live } },
      { request_put: { key: this.#recent(machineId), value: text(''), lease: leases.recent } },
    ];
  }

  /**
   * Renews a held id: the era and the record unchanged since this holder's last write. Writes
   * the new mark alone while the live and recent keys stand under `leases` (etcd compares each
   * key's lease; a missing key has none), or else the mark and both keys under `leases`, in one
   * more request: after fresh leases replaced expired ones, or a key deleted by hand while its
   * lease lives (left missing, the id would look free to a restart under the same key, and
   * reclaimable as soon as its holder died). Returns the record's new mod revision, or
   * undefined: the lease is lost.
   */
  async renew(
    era: EtcdEra,
    machineId: number,
    written: string,
    data: IdRecordData,
    leases: HeldLeases,
    instance: string,
  ): Promise<string | undefined> {
    const renewed = async (compare: ICompare[], success: IRequestOp[]) => {
      const r = await this.#txn({ compare, success });
      return r.succeeded ? r.header.revision : undefined;
    };
    const held = this.#heldAt(era, machineId, written);
    return (
      (await renewed(
        [
          ...held,
          this.#under(this.#live(machineId), leases.live),
          this.#under(this.#recent(machineId), leases.recent),
        ],
        [this.#recordPut(machineId, data)],
      )) ?? (await renewed(held, this.#holdOps(machineId, data, leases, instance)))
    );
  }

  /** A compare that holds while `key` exists under the etcd lease `lease`. */
  #under(key: Buffer, lease: string): ICompare {
    return { key, target: 'Lease', result: 'Equal', lease };
  }

  /** Ends a held id: the final record written and the live key deleted (recent stays). */
  async release(
    era: EtcdEra,
    machineId: number,
    written: string,
    data: IdRecordData,
  ): Promise<boolean> {
    const r = await this.#txn({
      compare: this.#heldAt(era, machineId, written),
      success: [
        this.#recordPut(machineId, data),
        { request_delete_range: { key: this.#live(machineId) } },
      ],
    });
    return r.succeeded;
  }

  /** The admin's release: owner and instance cleared, live key deleted, if the record is at `read`. */
  async adminRelease(machineId: number, read: string, data: IdRecordData): Promise<boolean> {
    const released = text(JSON.stringify({ ...data, owner: null, instance: null }));
    const r = await this.#txn({
      compare: [at(this.#id(machineId), read)],
      success: [
        { request_put: { key: this.#id(machineId), value: released } },
        { request_delete_range: { key: this.#live(machineId) } },
      ],
    });
    return r.succeeded;
  }
}
