import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { noop } from 'cockatiel';
import { castGrpcError, Etcd3, Range } from 'etcd3';
import {
  decodeJournalEntry,
  encodeJournalEntry,
  trimJournal,
  withDeadline,
  type HoldVerbs,
  type LeaseEraState,
  type LeaseHolding,
  type LeaseJournalEntry,
} from '@vesta/lease';
import protobuf from 'protobufjs';
import type { ResolvedEtcdMachineIdOptions } from '../EtcdMachineIdOptions.js';

/** protobufjs's decoding of etcd's answers; revisions are longs (`String()` gives them exactly). */
type Long = object;
type RawKeyValue = { key: Buffer; value: Buffer; modRevision: Long; createRevision: Long };
type RangeAnswer = { kvs: RawKeyValue[]; count: Long; more: boolean };
type TxnAnswer = {
  header: { revision: Long };
  succeeded: boolean;
  responses: { responseRange?: RangeAnswer | null; responseTxn?: { succeeded: boolean } | null }[];
};
type EtcdOp = object;

const RPC_PROTO = createRequire(import.meta.url).resolve('etcd3/proto/rpc.proto');
let rpc: protobuf.Root | undefined;

/** etcd3's client with transactions on protobufjs objects (etcd3's conversion costs 3× the CPU). */
class EtcdClient extends Etcd3 {
  async kvTxn(request: object, deadline: number): Promise<TxnAnswer> {
    rpc ??= protobuf.loadSync(RPC_PROTO);
    const type = rpc.lookupType('etcdserverpb.TxnRequest');
    const body = Buffer.from(type.encode(type.fromObject(request)).finish());
    const raw = (b: Buffer) => b;
    const answer = await this.pool.withConnection(
      'KV',
      ({ client, metadata }) =>
        new Promise<Buffer>((resolve, reject) => {
          const path = '/etcdserverpb.KV/Txn';
          client.makeUnaryRequest(path, raw, raw, body, metadata, { deadline }, (error, r) =>
            error !== null || r === undefined
              ? reject(castGrpcError(error ?? new Error()))
              : resolve(r),
          );
        }),
    );
    return rpc.lookupType('etcdserverpb.TxnResponse').decode(answer) as unknown as TxnAnswer;
  }
}

/** An id's record; `writtenAtMs` is the writer's clock (etcd keeps no time). */
export type IdRecordData = LeaseHolding & { host?: string; pid?: number; writtenAtMs?: number };

/** The era key; writes compare its whole value (revisions restart after a data loss). */
export type EtcdEra = Required<LeaseEraState> & { readonly value: Buffer };

/** A span of the key order. */
export type KeySpan = { readonly from: string; readonly to: string | undefined };

/** One read: the era, a key's index entry, a window and single ids (none: every id). */
type ClaimRead = { era?: boolean; indexOf?: string; window?: KeySpan; ids?: readonly number[] };

/** A start's etcd leases: `live` (TTL the fence) and `recent` (TTL the reclaim delay). */
export type HeldLeases = { readonly live: string; readonly recent: string };

type LeaseTtls = Pick<ResolvedEtcdMachineIdOptions, 'fenceAfterMs' | 'reclaimAfterMs'>;
type JournalWrite = { readonly entry: LeaseJournalEntry; readonly retention: number };

/** The fence, but at least etcd's minimum TTL of 2 s. */
export const liveTtlMs = (fenceAfterMs: number): number => Math.max(2000, fenceAfterMs);

const text = (value: string): Buffer => Buffer.from(value, 'utf8');
const put = (key: Buffer, value: Buffer, lease?: string) => ({ requestPut: { key, value, lease } });
/** A range read of `key` alone (with `rangeEnd`: of the range). */
export const range = (key: Buffer, more: object = {}) => ({ requestRange: { key, ...more } });
const drop = (key: Buffer): EtcdOp => ({ requestDeleteRange: { key } });
/** Holds while `key` does not exist (with `rangeEnd`: no key of the range does). */
const absent = (key: Buffer, rangeEnd?: Buffer) => ({ key, rangeEnd, target: 'Create' });
const at = (key: Buffer, modRevision: string) => ({ key, target: 'Mod', modRevision });
const under = (key: Buffer, lease: string) => ({ key, target: 'Lease', lease });
const prefixEnd = (prefix: Buffer): Buffer => Range.prefix(prefix).end;
const kvsOf = (r: TxnAnswer) => r.responses.map((op) => op.responseRange?.kvs ?? []);

/** The object `value` holds; undefined for a foreign or torn value. */
function parsed(value: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(value.toString('utf8'));
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The id ending `key` past `prefixBytes`, written as ids are (no sign, no leading zero). */
function idOf(key: Buffer, prefixBytes: number): number | undefined {
  const digits = key.toString('latin1', prefixBytes);
  const id = /^(0|[1-9][0-9]{0,3})$/.test(digits) ? Number(digits) : 1024;
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

  /** Decoded when first asked; undefined when unreadable. */
  get data(): IdRecordData | undefined {
    if (this.#data !== null) return this.#data;
    const v = parsed(this.kv.value) as Partial<IdRecordData> | undefined;
    const name = (s: unknown) => s === null || typeof s === 'string';
    const ok = v && name(v.owner) && name(v.instance) && Number.isSafeInteger(v.markMs);
    const whole = ok && [v.genMethod, v.type].every(Number.isInteger);
    return (this.#data = whole ? (v as IdRecordData) : undefined);
  }

  /** False when the record certainly does not name `key` (told without decoding it). */
  mayName(key: string): boolean {
    return this.kv.value.includes(JSON.stringify(key));
  }

  get owner(): string | null | undefined {
    return this.data?.owner;
  }

  get markMs(): number | undefined {
    return this.data?.markMs;
  }

  get modRevision(): string {
    return String(this.kv.modRevision);
  }
}

/**
 * A client's keep-alive stream; once failed, it serves none. An answer goes to the oldest keep-alive
 * of its lease (etcd's gRPC proxy answers each lease on its own, out of the order asked).
 */
class KeepAliveStream {
  readonly #stream: ReturnType<EtcdClient['leaseClient']['leaseKeepAlive']>;
  readonly #waiting: { ID: string; resolve(alive: boolean): void; reject(e: unknown): void }[] = [];
  failed: unknown;

  constructor(client: EtcdClient) {
    this.#stream = client.leaseClient.leaseKeepAlive();
    this.#stream
      .then((stream) => {
        stream.on('data', (res) => {
          const n = this.#waiting.findIndex((w) => w.ID === String(res.ID));
          if (n >= 0) return this.#waiting.splice(n, 1)[0]?.resolve(Number(res.TTL) > 0);
          this.end(new Error(`etcd answered a keep-alive of lease ${res.ID} never asked`));
        });
        stream.on('error', (error: unknown) => this.#fail(error));
        stream.on('end', () => this.#fail(new Error('etcd ended the keep-alive stream')));
        if (this.failed !== undefined) stream.end();
      })
      .catch((error: unknown) => this.#fail(error));
  }

  /** Keeps each of `leases` alive once; for each, false when etcd says it has expired. */
  async keepAlive(leases: readonly string[]): Promise<boolean[]> {
    const stream = await this.#stream;
    const once = (ID: string) =>
      new Promise<boolean>((resolve, reject) => {
        if (this.failed !== undefined) return reject(this.failed);
        this.#waiting.push({ ID, resolve, reject });
        stream.write({ ID });
      });
    return Promise.all(leases.map(once));
  }

  /** Ends the stream; keep-alives still waiting are rejected with `why`. */
  end(why: unknown = new Error('the keep-alive stream was ended')): void {
    if (this.failed === undefined) this.#stream.then((s) => s.end()).catch(() => undefined);
    this.#fail(why);
  }

  #fail(error: unknown): void {
    this.failed ??= error;
    for (const w of this.#waiting.splice(0)) w.reject(this.failed);
  }
}

/** A fleet's keys in etcd (the README's Design), each operation one request or transaction. */
export class EtcdNamespace {
  #client: EtcdClient;
  /** A fleet's starts spread over the members. */
  #member: number;
  readonly #host = hostname();
  #keeper: KeepAliveStream | undefined;

  constructor(
    private readonly o: Pick<
      ResolvedEtcdMachineIdOptions,
      'endpoints' | 'root' | 'connectTimeoutMs' | 'operationTimeoutMs'
    >,
  ) {
    this.#member = Math.floor(Math.random() * o.endpoints.length);
    this.#client = this.#open();
  }

  #open(): EtcdClient {
    const { endpoints } = this.o;
    return new EtcdClient({
      // One member at a time: a failing request moves the client to the next (reconnect).
      hosts: [endpoints[this.#member % endpoints.length] ?? ''],
      dialTimeout: this.o.connectTimeoutMs,
      faultHandling: { host: () => noop, global: noop }, // the lease's loop retries on its schedule
      grpcOptions: {
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

  onAnyMember<T>(work: () => Promise<T>, tried = 1): Promise<T> {
    return work().catch((error: unknown) => {
      if (tried >= this.o.endpoints.length) throw error;
      this.reconnect();
      return this.onAnyMember(work, tried + 1);
    });
  }

  close(): void {
    this.#keeper?.end();
    this.#keeper = undefined;
    this.#client.close();
  }

  /** `work` within the operation timeout, whatever the client does. */
  request<T>(work: (client: EtcdClient, deadline: number) => Promise<T>): Promise<T> {
    const ms = this.o.operationTimeoutMs;
    const error = () => new Error(`etcd did not answer within ${ms} ms`);
    return withDeadline(work(this.#client, Date.now() + ms), ms, error);
  }

  #txn(compare: object[], success: EtcdOp[], failure: EtcdOp[] = []): Promise<TxnAnswer> {
    return this.request((c, deadline) => c.kvTxn({ compare, success, failure }, deadline));
  }

  /** The answers of a read-only transaction of `ops`. */
  readonly #read = async (...ops: EtcdOp[]) => kvsOf(await this.#txn([], ops));

  #key(path: string): Buffer {
    return text(`${this.o.root}/${path}`);
  }

  #eraValue(era: string, open: boolean, indexed: boolean): Buffer {
    const index = indexed ? { indexed } : {};
    return text(JSON.stringify({ era, open, ...index, host: this.#host, pid: process.pid }));
  }

  #eraIs(era: EtcdEra) {
    return { key: this.#key('era'), target: 'Value', value: era.value };
  }

  #eraOf(kv: RawKeyValue | undefined): EtcdEra | undefined {
    if (kv === undefined) return undefined;
    // A copy: it may be a slice of the whole answer.
    const value = Buffer.from(kv.value);
    const v = parsed(value);
    return typeof v?.['era'] === 'string'
      ? { era: v['era'], open: v['open'] === true, indexed: v['indexed'] === true, value }
      : { era: `unreadable@${String(kv.modRevision)}`, open: false, indexed: false, value };
  }

  /** A closed era if there is none, indexed while no record exists; the era key as it is after. */
  async createEra(era: string): Promise<{ created: boolean; after: EtcdEra | undefined }> {
    const [key, ids] = [this.#key('era'), this.#key('ids/')];
    const indexed = this.#eraValue(era, false, true);
    const unindexed = this.#eraValue(era, false, false);
    const compare = [absent(ids, prefixEnd(ids))];
    const nested = { compare, success: [put(key, indexed)], failure: [put(key, unindexed)] };
    const r = await this.#txn([absent(key)], [{ requestTxn: nested }], [range(key)]);
    if (!r.succeeded) return { created: false, after: this.#eraOf(kvsOf(r)[0]?.[0]) };
    const whole = r.responses[0]?.responseTxn?.succeeded === true;
    const value = whole ? indexed : unindexed;
    return { created: true, after: { era, open: false, indexed: whole, value } };
  }

  /** The era created open while no key lies under `<root>/`; else the first `limit` keys. */
  async initEra(era: string, limit: number): Promise<{ created: true } | { found: string[] }> {
    const [prefix, rangeEnd] = [this.#key(''), prefixEnd(this.#key(''))];
    const r = await this.#txn(
      [absent(prefix, rangeEnd)],
      [put(this.#key('era'), this.#eraValue(era, true, true))],
      [range(prefix, { rangeEnd, keysOnly: true, limit })],
    );
    if (r.succeeded) return { created: true };
    return { found: (kvsOf(r)[0] ?? []).map((kv) => kv.key.toString('utf8')) };
  }

  /** Opens `found` if it still stands; the era key as it is after, and `also` read with it. */
  async openEra(found: EtcdEra, also?: ClaimRead) {
    const value = this.#eraValue(found.era, true, found.indexed);
    const read = also === undefined ? undefined : this.#claimRead(also);
    const [key, ops, is] = [this.#key('era'), read?.ops ?? [], this.#eraIs(found)];
    const r = await this.#txn([is], [put(key, value), ...ops], [range(key), ...ops]);
    const [first, ...answers] = kvsOf(r);
    const era = r.succeeded ? { ...found, open: true, value } : this.#eraOf(first?.[0]);
    return { era, ...(read && { also: read.decode(answers) }) };
  }

  /** One transaction: one consistent read. */
  async read(q: ClaimRead) {
    const { ops, decode } = this.#claimRead(q);
    return decode(await this.#read(...ops));
  }

  #claimRead(q: ClaimRead) {
    const [reads, { window: w, ids }]: [[string, EtcdOp][], ClaimRead] = [[], q];
    if (q.era === true) reads.push(['era', range(this.#key('era'))]);
    if (q.indexOf !== undefined) reads.push(['index', range(this.#key(`owners/${q.indexOf}`))]);
    for (const sub of ['ids', 'live', 'recent']) {
      const [keysOnly, key] = [sub !== 'ids', (id: string | number) => this.#key(`${sub}/${id}`)];
      const rangeEnd = w?.to === undefined ? prefixEnd(key('')) : key(w.to);
      if (w !== undefined || ids === undefined)
        reads.push([sub, range(key(w?.from ?? ''), { rangeEnd, keysOnly })]);
      for (const id of ids ?? []) reads.push([sub, range(key(id), { keysOnly })]);
    }
    const decode = (answers: readonly RawKeyValue[][]) => {
      const of = (tag: string) => reads.flatMap(([t], n) => (t === tag ? (answers[n] ?? []) : []));
      const idsIn = (sub: string) => {
        const after = Buffer.byteLength(`${this.o.root}/${sub}/`);
        return new Map(of(sub).map((kv) => [idOf(kv.key, after), kv]));
      };
      const [live, recent] = [idsIn('live'), idsIn('recent')];
      const rows = [...idsIn('ids')].flatMap(([id, kv]) =>
        id === undefined ? [] : [new EtcdIdRow(id, kv, live.has(id), recent.has(id))],
      );
      const entry = of('index')[0];
      rows.sort((a, b) => a.machineId - b.machineId);
      return { era: this.#eraOf(of('era')[0]), indexed: entry && idOf(entry.value, 0), rows };
    };
    return { ops: reads.map(([, op]) => op), decode };
  }

  /** False for each lease etcd says has expired; the stream is opened again after a failure. */
  async keepAliveAll(leases: readonly string[]): Promise<boolean[]> {
    if (this.#keeper?.failed !== undefined) this.#keeper = undefined;
    const keeper = (this.#keeper ??= new KeepAliveStream(this.#client));
    return this.request(() => keeper.keepAlive(leases)).catch((error: unknown) => {
      keeper.end(error);
      throw error;
    });
  }

  /** `held` kept alive in one round trip, or granted anew where missing or expired. */
  async keepLeases(held: HeldLeases | undefined, o: LeaseTtls): Promise<HeldLeases> {
    const [live, recent] = held ? await this.keepAliveAll([held.live, held.recent]) : [];
    const grant = async (ttlMs: number) => {
      const TTL = Math.max(1, Math.ceil(ttlMs / 1000));
      return (await this.request((c, d) => c.leaseClient.leaseGrant({ TTL }, { deadline: d }))).ID;
    };
    const [liveId, recentId] = await Promise.all([
      live === true && held ? held.live : grant(liveTtlMs(o.fenceAfterMs)),
      recent === true && held ? held.recent : grant(o.reclaimAfterMs),
    ]);
    return { live: liveId, recent: recentId };
  }

  async revoke(lease: string): Promise<void> {
    await this.request((c, deadline) => c.leaseClient.leaseRevoke({ ID: lease }, { deadline }));
  }

  #idKeys(machineId: number) {
    const keys = ['ids', 'live', 'recent'].map((sub) => this.#key(`${sub}/${machineId}`));
    return keys as [id: Buffer, live: Buffer, recent: Buffer];
  }

  /** The revision written, or undefined when `compare` failed. */
  async #write(compare: object[], success: EtcdOp[]): Promise<string | undefined> {
    const r = await this.#txn(compare, success);
    return r.succeeded ? String(r.header.revision) : undefined;
  }

  #record(machineId: number, data: IdRecordData): EtcdOp {
    const value = { ...data, host: this.#host, pid: process.pid, writtenAtMs: Date.now() };
    return put(this.#key(`ids/${machineId}`), text(JSON.stringify(value)));
  }

  /** The record, the live key (holding the instance) and the recent key, under `leases`. */
  #holdOps(machineId: number, data: IdRecordData, leases: HeldLeases): EtcdOp[] {
    const [, live, recent] = this.#idKeys(machineId);
    return [
      this.#record(machineId, data),
      put(live, text(data.instance ?? ''), leases.live),
      put(recent, Buffer.alloc(0), leases.recent),
    ];
  }

  /**
   * Writes `data` under `leases` (and `index`'s entry, `journal`'s entry) if `era` stands, the record
   * is at `read` (absent: never used) and no live key (`reclaim`: nor recent key) exists; the
   * revision written.
   */
  async claim(
    era: EtcdEra,
    machineId: number,
    read: string | undefined,
    reclaim: boolean,
    data: IdRecordData,
    leases: HeldLeases,
    index?: string,
    journal?: JournalWrite,
  ): Promise<string | undefined> {
    const [id, live, recent] = this.#idKeys(machineId);
    const was = read === undefined ? absent(id) : at(id, read);
    const compare = [this.#eraIs(era), absent(live), was, ...(reclaim ? [absent(recent)] : [])];
    const ops = this.#holdOps(machineId, data, leases);
    if (index !== undefined) ops.push(put(this.#key(`owners/${index}`), text(String(machineId))));
    return journal ? this.#journaled(compare, ops, journal) : this.#write(compare, ops);
  }

  /** A held id: writes compare the era and the last write; `leases`: the claim's (none: cached). */
  hold(machineId: number, indexKey: string, leases: HeldLeases | undefined, o: LeaseTtls) {
    const [id, live, recent] = this.#idKeys(machineId);
    const heldAt = (era: EtcdEra, written: string) => [this.#eraIs(era), at(id, written)];
    return {
      keepAlive: async () => {
        const held = leases;
        leases = await this.keepLeases(held, o);
        return held?.live === leases.live && held.recent === leases.recent;
      },
      // Retaken: claimed again; else the record alone while both keys stand, else all again.
      renew: async (era, data, written, retake) => {
        if (leases === undefined) return 'conflict';
        const held = heldAt(era, written);
        const kept = [...held, under(live, leases.live), under(recent, leases.recent)];
        const r = retake
          ? await this.claim(era, machineId, written, false, data, leases, indexKey)
          : ((await this.#write(kept, [this.#record(machineId, data)])) ??
            (await this.#write(held, this.#holdOps(machineId, data, leases))));
        return r ?? 'conflict';
      },
      read: async () => {
        const { era, rows } = await this.read({ era: true, ids: [machineId] });
        const [row] = rows;
        const record = row?.data && { ...row.data, live: row.live, version: row.modRevision };
        return { era, record };
      },
      release: async (era, data, written) => {
        const ops = [this.#record(machineId, data), drop(live)];
        const released = (await this.#write(heldAt(era, written), ops)) !== undefined;
        if (leases !== undefined) await this.revoke(leases.live).catch(() => undefined);
        return released;
      },
      close: () => this.close(),
      reconnect: () => this.reconnect(),
    } satisfies HoldVerbs<string, EtcdEra>;
  }

  /** Clears the owner and drops the live key if the record is still at `read`. */
  async adminRelease(machineId: number, read: string, data: IdRecordData): Promise<boolean> {
    const [id, live] = this.#idKeys(machineId);
    const released = text(JSON.stringify({ ...data, owner: null, instance: null }));
    return (await this.#write([at(id, read)], [put(id, released), drop(live)])) !== undefined;
  }

  async appendJournal(entry: LeaseJournalEntry, retention: number): Promise<void> {
    await this.#journaled([], [], { entry, retention });
  }

  /** `ops` and `entry` written if `compare` holds, then the journal trimmed to `retention`. */
  async #journaled(compare: object[], ops: EtcdOp[], journal: JournalWrite) {
    const at = `${String(journal.entry.atMs).padStart(15, '0')}-${randomUUID().slice(0, 8)}`;
    const [key, rangeEnd] = this.#history();
    const entry = put(this.#key(`history/${at}`), text(encodeJournalEntry(journal.entry)));
    // The journal's count last: the trim reads the transaction's last answer.
    const r = await this.#txn(compare, [...ops, entry, range(key, { rangeEnd, countOnly: true })]);
    if (!r.succeeded) return undefined;
    // The oldest read at the revision counted: concurrent trims agree.
    const { revision } = r.header;
    const order = { sortOrder: 'Ascend', sortTarget: 'Create', keysOnly: true, rangeEnd, revision };
    await trimJournal({
      count: Number(String(r.responses.at(-1)?.responseRange?.count ?? 0)),
      retention: journal.retention,
      oldest: async (limit) =>
        (await this.#read(range(key, { ...order, limit })))[0]?.map((kv) => kv.key) ?? [],
      remove: async (keys) => void (await this.#txn([], keys.map(drop))),
    });
    return String(revision);
  }

  /** In creation order; pages of 1,000 (under grpc's 4 MiB) at one revision. */
  async readJournal(): Promise<LeaseJournalEntry[]> {
    const [key, rangeEnd] = this.#history();
    const kvs: RawKeyValue[] = [];
    let revision: Long | undefined;
    for (let page = 0, from = key; page < 11_001; page++) {
      const r = await this.#txn([], [range(from, { rangeEnd, limit: 1000, revision })]);
      const answer = r.responses[0]?.responseRange;
      revision ??= r.header.revision;
      kvs.push(...(answer?.kvs ?? []));
      const last = answer?.kvs.at(-1);
      if (answer?.more !== true || last === undefined) break;
      from = Buffer.concat([last.key, Buffer.from([0])]);
    }
    const created = (kv: RawKeyValue) => BigInt(String(kv.createRevision));
    kvs.sort((a, b) => Number(created(a) - created(b)) || Buffer.compare(a.key, b.key));
    return kvs.flatMap((kv) => decodeJournalEntry(kv.value.toString('utf8')) ?? []);
  }

  #history(): [key: Buffer, rangeEnd: Buffer] {
    const key = this.#key('history/');
    return [key, prefixEnd(key)];
  }
}
