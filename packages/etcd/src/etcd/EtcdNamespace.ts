import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { noop } from 'cockatiel';
import {
  EtcdLeaseInvalidError,
  type IDuplexStream,
  type ILeaseKeepAliveRequest,
  type ILeaseKeepAliveResponse,
} from 'etcd3';
import {
  decodeJournalEntry,
  encodeJournalEntry,
  trimJournal,
  withDeadline,
  type LeaseHolding,
  type LeaseJournalEntry,
} from '@vesta/lease';
import { EtcdClient, type RangeAnswer, type RawKeyValue, type TxnAnswer } from './EtcdClient.js';

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
 * existed, so each record of the era has its key's `owners/<key>` entry.
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

/** A request operation of etcd's `rpc.proto`, as protobufjs takes it. */
export type EtcdOp = object;

/** The TTL of a live lease: the fence, but at least etcd's minimum of 2 s. */
export const liveTtlMs = (fenceAfterMs: number): number => Math.max(2000, fenceAfterMs);

/** Whether a request failed because etcd no longer knows a lease it named. */
export const isLeaseExpired = (error: unknown): boolean => error instanceof EtcdLeaseInvalidError;

const text = (value: string): Buffer => Buffer.from(value, 'utf8');
const put = (key: Buffer, value: Buffer, lease?: string): EtcdOp => ({
  requestPut: { key, value, lease },
});
const range = (key: Buffer, more: object = {}): EtcdOp => ({ requestRange: { key, ...more } });
const drop = (key: Buffer): EtcdOp => ({ requestDeleteRange: { key } });
/** Holds while `key` does not exist (with `rangeEnd`: no key of the range does). */
const absent = (key: Buffer, rangeEnd?: Buffer) => ({ key, rangeEnd, target: 'Create' });
const at = (key: Buffer, modRevision: string) => ({ key, target: 'Mod', modRevision });

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
  ) {}

  /** Decoded when first asked (a round may read thousands); undefined when unreadable. */
  get data(): IdRecordData | undefined {
    if (this.#data === null) this.#data = decodeRecord(this.kv.value);
    return this.#data;
  }

  /** False when the record certainly does not name `key` (told without decoding it). */
  mayName(key: string): boolean {
    return this.kv.value.includes(JSON.stringify(key));
  }

  /** The key its record names (null: released); undefined when unreadable. */
  get owner(): string | null | undefined {
    return this.data?.owner;
  }

  get modRevision(): string {
    return String(this.kv.modRevision);
  }
}

type KeepAlives = IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse>;

/**
 * One client's keep-alive stream, open for every renewal: a keep-alive is a message each way, not
 * a call, and etcd answers a lease's keep-alives in the order they were sent. Once failed or
 * ended, it rejects every keep-alive waiting and serves none again.
 */
class KeepAliveStream {
  readonly #stream: Promise<KeepAlives>;
  readonly #waiting = new Map<
    string,
    { resolve(alive: boolean): void; reject(e: unknown): void }[]
  >();
  failed: unknown;

  constructor(opening: Promise<KeepAlives>) {
    this.#stream = opening.then((stream) => {
      stream.on('data', (res: ILeaseKeepAliveResponse) => {
        const waiters = this.#waiting.get(String(res.ID));
        waiters?.shift()?.resolve(Number(res.TTL) > 0);
        if (waiters?.length === 0) this.#waiting.delete(String(res.ID));
      });
      stream.on('error', (error: unknown) => this.#fail(error));
      stream.on('end', () => this.#fail(new Error('etcd ended the keep-alive stream')));
      if (this.failed !== undefined) stream.end();
      return stream;
    });
    this.#stream.catch((error: unknown) => this.#fail(error));
  }

  /** Keeps each of `leases` alive once; for each, false when etcd says it has expired. */
  async keepAlive(leases: readonly string[]): Promise<boolean[]> {
    const stream = await this.#stream;
    return Promise.all(
      leases.map(
        (lease) =>
          new Promise<boolean>((resolve, reject) => {
            if (this.failed !== undefined) return reject(this.failed);
            this.#waiting.set(lease, [...(this.#waiting.get(lease) ?? []), { resolve, reject }]);
            stream.write({ ID: lease });
          }),
      ),
    );
  }

  /** Ends the stream; keep-alives still waiting are rejected with `why`. */
  end(why: unknown = new Error('the keep-alive stream was ended')): void {
    if (this.failed === undefined) this.#stream.then((s) => s.end()).catch(() => undefined);
    this.#fail(why);
  }

  #fail(error: unknown): void {
    this.failed ??= error;
    const waiting = [...this.#waiting.values()].flat();
    this.#waiting.clear();
    for (const w of waiting) w.reject(this.failed);
  }
}

/**
 * A fleet's keys in etcd, each operation one request or transaction: `era`, `ids/<id>` (the
 * record), `live/<id>` (under the holder's live lease: a claim requires it absent),
 * `recent/<id>` (under a lease of the reclaim delay: a dead owner's id is reclaimable once etcd
 * expired it), `owners/<key>` (the id a stable key holds) and `history/<time>-<random>` (the
 * journal).
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
        // A connection of this client's own (grpc shares one between equal options): a client
        // replacing a stuck one never reuses its connection.
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
  request<T>(work: (client: EtcdClient, deadline: number) => Promise<T>): Promise<T> {
    const ms = this.#o.operationTimeoutMs;
    const error = () => new Error(`etcd did not answer within ${ms} ms`);
    return withDeadline(work(this.#client, Date.now() + ms), ms, error);
  }

  #txn(compare: object[], success: EtcdOp[], failure: EtcdOp[] = []): Promise<TxnAnswer> {
    return this.request((c, deadline) => c.kvTxn({ compare, success, failure }, deadline));
  }

  #key(path: string): Buffer {
    return text(`${this.root}/${path}`);
  }

  /** The era key's value, stamped with who wrote it; `indexed` only when true (as before it existed). */
  #eraValue(era: string, open: boolean, indexed: boolean): Buffer {
    const index = indexed ? { indexed } : {};
    return text(JSON.stringify({ era, open, ...index, host: this.#host, pid: process.pid }));
  }

  #eraIs(era: EtcdEra) {
    return { key: this.#key('era'), target: 'Value', value: era.value };
  }

  #eraOf(kv: RawKeyValue | undefined): EtcdEra | undefined {
    if (kv === undefined) return undefined;
    // A copy: the value may be a slice of a whole answer.
    const value = Buffer.from(kv.value);
    try {
      const v = JSON.parse(value.toString('utf8')) as Record<string, unknown>;
      if (typeof v.era === 'string') {
        return { era: v.era, open: v.open === true, indexed: v.indexed === true, value };
      }
    } catch {
      // unreadable: below
    }
    return { era: `unreadable@${String(kv.modRevision)}`, open: false, indexed: false, value };
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
    const [indexed, unindexed] = [true, false].map((i) => this.#eraValue(era, false, i)) as [
      Buffer,
      Buffer,
    ];
    const [key, ids] = [this.#key('era'), this.#key('ids/')];
    const nested = {
      compare: [absent(ids, prefixEnd(ids))],
      success: [put(key, indexed)],
      failure: [put(key, unindexed)],
    };
    const r = await this.#txn([absent(key)], [{ requestTxn: nested }], [range(key)]);
    if (!r.succeeded) return { created: false, after: this.#eraOf(this.#kvs(r)[0]?.[0]) };
    const whole = r.responses[0]?.responseTxn?.succeeded === true;
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
    const rangeEnd = prefixEnd(prefix);
    const r = await this.#txn(
      [absent(prefix, rangeEnd)],
      [put(this.#key('era'), this.#eraValue(era, true, true))],
      [range(prefix, { rangeEnd, keysOnly: true, limit })],
    );
    if (r.succeeded) return { created: true };
    return { found: (this.#kvs(r)[0] ?? []).map((kv) => kv.key.toString('utf8')) };
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
    const key = this.#key('era');
    const reads = read?.ops ?? [];
    const r = await this.#txn(
      [this.#eraIs(found)],
      [put(key, value), ...reads],
      [range(key), ...reads],
    );
    const [first, ...answers] = this.#kvs(r);
    const era = r.succeeded ? { ...found, open: true, value } : this.#eraOf(first?.[0]);
    return { era, ...(read && { also: read.decode(answers) }) };
  }

  async readIds(): Promise<EtcdIdRow[]> {
    return (await this.read({})).rows;
  }

  /** What a claim round reads, in one transaction (one consistent read). */
  async read(q: ClaimRead): Promise<ClaimReadResult> {
    const { ops, decode } = this.#claimRead(q);
    return decode(this.#kvs(await this.#txn([], ops)));
  }

  #kvs(r: TxnAnswer): RawKeyValue[][] {
    return r.responses.map((op) => op.responseRange?.kvs ?? []);
  }

  #claimRead(q: ClaimRead) {
    const head = [
      ...(q.era === true ? [range(this.#key('era'))] : []),
      ...(q.indexOf === undefined ? [] : [range(this.#key(`owners/${q.indexOf}`))]),
    ];
    const subs = (['ids', 'live', 'recent'] as const).map((sub) => {
      // The live and recent keys tell by their presence only.
      const keysOnly = sub !== 'ids';
      const prefix = this.#key(`${sub}/`);
      const of = (q.ids ?? []).map((id) => range(this.#key(`${sub}/${id}`), { keysOnly }));
      const w = q.window;
      if (w !== undefined) {
        const rangeEnd = w.to === undefined ? prefixEnd(prefix) : this.#key(`${sub}/${w.to}`);
        of.unshift(range(this.#key(`${sub}/${w.from}`), { rangeEnd, keysOnly }));
      } else if (q.ids === undefined)
        of.push(range(prefix, { rangeEnd: prefixEnd(prefix), keysOnly }));
      return of;
    });
    const decode = (answers: readonly RawKeyValue[][]): ClaimReadResult => {
      let next = 0;
      const era = q.era === true ? this.#eraOf(answers[next++]?.[0]) : undefined;
      const entry = q.indexOf === undefined ? undefined : answers[next++]?.[0];
      const [ids = [], live = [], recent = []] = subs.map((of) =>
        of.flatMap(() => answers[next++] ?? []),
      );
      return { era, indexed: entry && idOf(entry.value, 0), rows: this.#rowsOf(ids, live, recent) };
    };
    return { ops: [...head, ...subs.flat()], decode };
  }

  indexOp(key: string, machineId: number): EtcdOp {
    return put(this.#key(`owners/${key}`), text(String(machineId)));
  }

  /** The rows in id order. */
  #rowsOf(ids: RawKeyValue[], live: RawKeyValue[], recent: RawKeyValue[]): EtcdIdRow[] {
    const idsOf = (kvs: RawKeyValue[], sub: string) => {
      const at = Buffer.byteLength(`${this.root}/${sub}/`);
      return new Set(kvs.map((kv) => idOf(kv.key, at)));
    };
    const [isLive, isRecent] = [idsOf(live, 'live'), idsOf(recent, 'recent')];
    const byId: EtcdIdRow[] = [];
    const at = Buffer.byteLength(`${this.root}/ids/`);
    for (const kv of ids) {
      const id = idOf(kv.key, at);
      if (id !== undefined) byId[id] = new EtcdIdRow(id, kv, isLive.has(id), isRecent.has(id));
    }
    return byId.filter((row) => row !== undefined);
  }

  /** Grants a lease of `ttlMs`, rounded up to whole seconds. */
  async grant(ttlMs: number): Promise<string> {
    const TTL = Math.max(1, Math.ceil(ttlMs / 1000));
    const granted = await this.request((c, deadline) =>
      c.leaseClient.leaseGrant({ TTL, ID: 0 }, { deadline }),
    );
    return granted.ID;
  }

  /**
   * Keeps `leases` alive once on this client's keep-alive stream (opened again after it failed or
   * let a keep-alive time out); false for each that etcd says has expired.
   */
  async keepAliveAll(leases: readonly string[]): Promise<boolean[]> {
    let used: KeepAliveStream | undefined;
    try {
      return await this.request((c) => {
        if (this.#keeper?.failed !== undefined) this.#keeper = undefined;
        used = this.#keeper ??= new KeepAliveStream(c.leaseClient.leaseKeepAlive());
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
    await this.request((c, deadline) => c.leaseClient.leaseRevoke({ ID: lease }, { deadline }));
  }

  /** The writes on one id's keys, each one transaction; a holder's compare its last write. */
  ofId(machineId: number) {
    const [id, live, recent] = ['ids', 'live', 'recent'].map((sub) =>
      this.#key(`${sub}/${machineId}`),
    ) as [Buffer, Buffer, Buffer];
    const txn = async (compare: object[], success: EtcdOp[]) => {
      const r = await this.#txn(compare, success);
      return r.succeeded ? r : undefined;
    };
    const record = (data: IdRecordData): EtcdOp => {
      const value = { ...data, host: this.#host, pid: process.pid, writtenAtMs: Date.now() };
      return put(id, text(JSON.stringify(value)));
    };
    const hold = (data: IdRecordData, leases: HeldLeases, instance: string): EtcdOp[] => [
      record(data),
      put(live, text(instance), leases.live),
      put(recent, Buffer.alloc(0), leases.recent),
    ];
    const heldAt = (era: EtcdEra, written: string) => [this.#eraIs(era), at(id, written)];
    const under = (key: Buffer, lease: string) => ({ key, target: 'Lease', lease });
    return {
      /**
       * Claims the id under the open era: the record unchanged since `read` (absent if never
       * used), no live key, for a reclaim no recent key; writes the record and both keys under
       * `leases`, then `also`. The transaction's answer, or undefined: it lost.
       */
      claim: async (
        era: EtcdEra,
        read: string | undefined,
        reclaim: boolean,
        data: IdRecordData,
        leases: HeldLeases,
        instance: string,
        also: readonly EtcdOp[] = [],
      ) => {
        const compare = [
          this.#eraIs(era),
          absent(live),
          read === undefined ? absent(id) : at(id, read),
        ];
        if (reclaim) compare.push(absent(recent));
        const r = await txn(compare, [...hold(data, leases, instance), ...also]);
        return r && { revision: String(r.header.revision), answer: r };
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
        return r && String(r.header.revision);
      },
      /** The final record written and the live key deleted (recent stays). */
      release: async (era: EtcdEra, written: string, data: IdRecordData) =>
        (await txn(heldAt(era, written), [record(data), drop(live)])) !== undefined,
      /** The admin's: owner and instance cleared, live key deleted, if the record is at `read`. */
      adminRelease: async (read: string, data: IdRecordData) => {
        const released = text(JSON.stringify({ ...data, owner: null, instance: null }));
        return (await txn([at(id, read)], [put(id, released), drop(live)])) !== undefined;
      },
    };
  }

  /** `entry`'s put, then the count of the journal's keys (see {@link trimJournal}). */
  journalOps(entry: LeaseJournalEntry): EtcdOp[] {
    const at = `${String(entry.atMs).padStart(15, '0')}-${randomUUID().slice(0, 8)}`;
    const { key, rangeEnd } = this.#history();
    return [
      put(this.#key(`history/${at}`), text(encodeJournalEntry(entry))),
      range(key, { rangeEnd, countOnly: true }),
    ];
  }

  /**
   * After a transaction ending with {@link journalOps}: trims past the retention. It reads the
   * oldest keys of the very snapshot counted (concurrent trims then pick the same keys, not the
   * oldest left after another's).
   */
  async trimJournal(written: TxnAnswer, retention: number): Promise<void> {
    const counted = written.responses.at(-1)?.responseRange?.count;
    await trimJournal({
      count: Number(String(counted ?? 0)),
      retention,
      oldest: async (limit) => {
        const q = { ...this.#history(), keysOnly: true, limit, revision: written.header.revision };
        const r = await this.request((c, d) =>
          c.kvRange({ ...q, sortOrder: 'Ascend', sortTarget: 'Create' }, d),
        );
        return r.kvs.map((kv) => kv.key);
      },
      remove: async (keys) => void (await this.#txn([], keys.map(drop))),
    });
  }

  async appendJournal(entry: LeaseJournalEntry, retention: number): Promise<void> {
    await this.trimJournal(await this.#txn([], this.journalOps(entry)), retention);
  }

  /**
   * Every entry the journal keeps, in etcd's creation order: read a thousand at a time in key
   * order (one answer of it all can pass grpc's 4 MiB), each page at the first page's revision.
   */
  async readJournal(): Promise<LeaseJournalEntry[]> {
    const { key, rangeEnd } = this.#history();
    const kvs: RawKeyValue[] = [];
    let revision: object | undefined;
    // Bounded: a journal holds at most 10 000 000 entries (the retention's ceiling) plus a tenth.
    for (let page = 0, from = key; page < 11_001; page++) {
      const r: RangeAnswer = await this.request((c, d) =>
        c.kvRange({ key: from, rangeEnd, limit: 1000, revision }, d),
      );
      revision ??= r.header.revision;
      kvs.push(...r.kvs);
      const last = r.kvs.at(-1);
      if (!r.more || last === undefined) break;
      from = Buffer.concat([last.key, Buffer.from([0])]);
    }
    const created = (kv: RawKeyValue) => BigInt(String(kv.createRevision));
    kvs.sort((a, b) => {
      const [x, y] = [created(a), created(b)];
      return x === y ? Buffer.compare(a.key, b.key) : x < y ? -1 : 1;
    });
    return kvs.flatMap((kv) => decodeJournalEntry(kv.value.toString('utf8')) ?? []);
  }

  #history() {
    const key = this.#key('history/');
    return { key, rangeEnd: prefixEnd(key) };
  }
}
