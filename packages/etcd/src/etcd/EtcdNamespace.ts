import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { noop } from 'cockatiel';
import {
  castGrpcError,
  Etcd3,
  EtcdLeaseInvalidError,
  type IDuplexStream,
  type ILeaseKeepAliveRequest as KeepAlive,
  type ILeaseKeepAliveResponse as KeptAlive,
} from 'etcd3';
import {
  decodeJournalEntry,
  encodeJournalEntry,
  trimJournal,
  withDeadline,
  type LeaseHolding,
  type LeaseJournalEntry,
} from '@vesta/lease';
import protobuf from 'protobufjs';
import type { ResolvedEtcdMachineIdOptions } from '../EtcdMachineIdOptions.js';

/** Revisions are longs (`String()` gives them exactly). */
interface RawKeyValue {
  readonly key: Buffer;
  readonly value: Buffer;
  readonly modRevision: object;
  readonly createRevision: object;
}

interface RangeAnswer {
  readonly header: { readonly revision: object };
  readonly kvs: RawKeyValue[];
  readonly count: object;
  readonly more: boolean;
}

interface TxnAnswer {
  readonly header: { readonly revision: object };
  readonly succeeded: boolean;
  readonly responses: readonly {
    readonly responseRange?: RangeAnswer | null;
    readonly responseTxn?: TxnAnswer | null;
  }[];
}

export type EtcdOp = object;

const types = new Map<string, protobuf.Type>();
let proto: protobuf.Root | undefined;

/** etcd3's client with KV calls on protobufjs objects (etcd3's conversion costs 3× the CPU). */
class EtcdClient extends Etcd3 {
  kvTxn(request: object, deadline: number): Promise<TxnAnswer> {
    return this.#call('Txn', request, deadline);
  }

  kvRange(request: object, deadline: number): Promise<RangeAnswer> {
    return this.#call('Range', request, deadline);
  }

  async #call<T>(method: string, request: object, deadline: number): Promise<T> {
    const type = (name: string) => {
      proto ??= protobuf.loadSync(createRequire(import.meta.url).resolve('etcd3/proto/rpc.proto'));
      const found = types.get(name) ?? proto.lookupType(`etcdserverpb.${name}`);
      types.set(name, found);
      return found;
    };
    const req = type(`${method}Request`);
    const body = Buffer.from(req.encode(req.fromObject(request)).finish());
    const raw = (b: Buffer) => b;
    const answer = await this.pool.withConnection(
      'KV',
      ({ client, metadata }) =>
        new Promise<Buffer>((resolve, reject) => {
          const path = `/etcdserverpb.KV/${method}`;
          client.makeUnaryRequest(path, raw, raw, body, metadata, { deadline }, (error, r) =>
            error !== null || r === undefined
              ? reject(castGrpcError(error ?? new Error()))
              : resolve(r),
          );
        }),
    );
    return type(`${method}Response`).decode(answer) as T;
  }
}

/** An id's record; `writtenAtMs` is the writer's clock (etcd keeps no time). */
export interface IdRecordData extends LeaseHolding {
  readonly host?: string;
  readonly pid?: number;
  readonly writtenAtMs?: number;
}

/** The era key; writes compare its whole value (revisions restart after a data loss). */
export interface EtcdEra {
  readonly era: string;
  readonly open: boolean;
  readonly indexed: boolean;
  readonly value: Buffer;
}

/** One read: the era, a key's index entry, a window and single ids (none: every id). */
export interface ClaimRead {
  readonly era?: boolean;
  readonly indexOf?: string;
  readonly window?: { readonly from: string; readonly to: string | undefined };
  readonly ids?: readonly number[];
}

/** A start's etcd leases: `live` (TTL the fence) and `recent` (TTL the reclaim delay). */
export interface HeldLeases {
  readonly live: string;
  readonly recent: string;
}

/** The fence, but at least etcd's minimum TTL of 2 s. */
export const liveTtlMs = (fenceAfterMs: number): number => Math.max(2000, fenceAfterMs);

export const isLeaseExpired = (error: unknown): boolean => error instanceof EtcdLeaseInvalidError;

const text = (value: string): Buffer => Buffer.from(value, 'utf8');
const put = (key: Buffer, value: Buffer, lease?: string): EtcdOp => ({
  requestPut: { key, value, lease },
});
/** A range read of `key` alone (with `rangeEnd`: of the range). */
export const range = (key: Buffer, more: object = {}): EtcdOp => ({
  requestRange: { key, ...more },
});
const drop = (key: Buffer): EtcdOp => ({ requestDeleteRange: { key } });
/** Holds while `key` does not exist (with `rangeEnd`: no key of the range does). */
const absent = (key: Buffer, rangeEnd?: Buffer) => ({ key, rangeEnd, target: 'Create' });
const at = (key: Buffer, modRevision: string) => ({ key, target: 'Mod', modRevision });
const under = (key: Buffer, lease: string) => ({ key, target: 'Lease', lease });

function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  end[end.length - 1] = (end[end.length - 1] ?? 0) + 1;
  return end;
}

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
    if (this.#data === null) {
      const v = parsed(this.kv.value) as Partial<IdRecordData> | undefined;
      const ok =
        v !== undefined &&
        (v.owner === null || typeof v.owner === 'string') &&
        (v.instance === null || typeof v.instance === 'string') &&
        Number.isSafeInteger(v.markMs) &&
        Number.isInteger(v.genMethod) &&
        Number.isInteger(v.type);
      this.#data = ok ? (v as IdRecordData) : undefined;
    }
    return this.#data;
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

type Waiter = { resolve(alive: boolean): void; reject(error: unknown): void };

/** A client's keep-alive stream (answered in order per lease); once failed, it serves none. */
class KeepAliveStream {
  readonly #stream: Promise<IDuplexStream<KeepAlive, KeptAlive>>;
  readonly #waiting = new Map<string, Waiter[]>();
  failed: unknown;

  constructor(opening: Promise<IDuplexStream<KeepAlive, KeptAlive>>) {
    this.#stream = opening.then((stream) => {
      stream.on('data', (res: KeptAlive) => {
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
    const once = (lease: string) =>
      new Promise<boolean>((resolve, reject) => {
        if (this.failed !== undefined) return reject(this.failed);
        this.#waiting.set(lease, [...(this.#waiting.get(lease) ?? []), { resolve, reject }]);
        stream.write({ ID: lease });
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
    const waiting = [...this.#waiting.values()].flat();
    this.#waiting.clear();
    for (const w of waiting) w.reject(this.failed);
  }
}

/** A fleet's keys in etcd (the README's Design), each operation one request or transaction. */
export class EtcdNamespace {
  readonly root: string;
  readonly #o: ConstructorParameters<typeof EtcdNamespace>[0];
  #client: EtcdClient;
  /** A fleet's starts spread over the members. */
  #member: number;
  readonly #host = hostname();
  #keeper: KeepAliveStream | undefined;

  constructor(
    options: Pick<
      ResolvedEtcdMachineIdOptions,
      'endpoints' | 'root' | 'connectTimeoutMs' | 'operationTimeoutMs'
    >,
  ) {
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
        // A connection of its own: a client replacing a stuck one never reuses it.
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

  /** `work` within the operation timeout, whatever the client does. */
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
    const [indexed, unindexed] = [
      this.#eraValue(era, false, true),
      this.#eraValue(era, false, false),
    ];
    const nested = {
      compare: [absent(ids, prefixEnd(ids))],
      success: [put(key, indexed)],
      failure: [put(key, unindexed)],
    };
    const r = await this.#txn([absent(key)], [{ requestTxn: nested }], [range(key)]);
    if (!r.succeeded) return { created: false, after: this.#eraOf(kvsOf(r)[0]?.[0]) };
    const whole = r.responses[0]?.responseTxn?.succeeded === true;
    const value = whole ? indexed : unindexed;
    return { created: true, after: { era, open: false, indexed: whole, value } };
  }

  /** The era created open while no key lies under `<root>/`; else the first `limit` keys. */
  async initEra(era: string, limit: number): Promise<{ created: true } | { found: string[] }> {
    const prefix = this.#key('');
    const rangeEnd = prefixEnd(prefix);
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
    const [key, reads] = [this.#key('era'), read?.ops ?? []];
    const r = await this.#txn(
      [this.#eraIs(found)],
      [put(key, value), ...reads],
      [range(key), ...reads],
    );
    const [first, ...answers] = kvsOf(r);
    const era = r.succeeded ? { ...found, open: true, value } : this.#eraOf(first?.[0]);
    return { era, ...(read && { also: read.decode(answers) }) };
  }

  /** One transaction: one consistent read. */
  async read(q: ClaimRead) {
    const { ops, decode } = this.#claimRead(q);
    return decode(kvsOf(await this.#txn([], ops)));
  }

  #claimRead(q: ClaimRead) {
    const head = [
      ...(q.era === true ? [range(this.#key('era'))] : []),
      ...(q.indexOf === undefined ? [] : [range(this.#key(`owners/${q.indexOf}`))]),
    ];
    const subs = (['ids', 'live', 'recent'] as const).map((sub) => {
      const keysOnly = sub !== 'ids';
      const prefix = this.#key(`${sub}/`);
      const of = (q.ids ?? []).map((id) => range(this.#key(`${sub}/${id}`), { keysOnly }));
      const w = q.window;
      if (w !== undefined) {
        const rangeEnd = w.to === undefined ? prefixEnd(prefix) : this.#key(`${sub}/${w.to}`);
        of.unshift(range(this.#key(`${sub}/${w.from}`), { rangeEnd, keysOnly }));
      } else if (q.ids === undefined) {
        of.push(range(prefix, { rangeEnd: prefixEnd(prefix), keysOnly }));
      }
      return of;
    });
    const decode = (answers: readonly RawKeyValue[][]) => {
      let next = 0;
      const era = q.era === true ? this.#eraOf(answers[next++]?.[0]) : undefined;
      const entry = q.indexOf === undefined ? undefined : answers[next++]?.[0];
      const [ids = [], live = [], recent = []] = subs.map((of) =>
        of.flatMap(() => answers[next++] ?? []),
      );
      const idsIn = (kvs: RawKeyValue[], sub: string) => {
        const after = Buffer.byteLength(`${this.root}/${sub}/`);
        return kvs.map((kv) => idOf(kv.key, after));
      };
      const [isLive, isRecent] = [new Set(idsIn(live, 'live')), new Set(idsIn(recent, 'recent'))];
      const rows: EtcdIdRow[] = [];
      idsIn(ids, 'ids').forEach((id, n) => {
        const kv = ids[n] as RawKeyValue;
        if (id !== undefined) rows[id] = new EtcdIdRow(id, kv, isLive.has(id), isRecent.has(id));
      });
      // In id order.
      return { era, indexed: entry && idOf(entry.value, 0), rows: rows.filter(Boolean) };
    };
    return { ops: [...head, ...subs.flat()], decode };
  }

  indexOp(key: string, machineId: number): EtcdOp {
    return put(this.#key(`owners/${key}`), text(String(machineId)));
  }

  /** False for each lease etcd says has expired; the stream is opened again after a failure. */
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

  /** `held` kept alive in one round trip, or granted anew where missing or expired. */
  async keepLeases(
    held: HeldLeases | undefined,
    o: { readonly fenceAfterMs: number; readonly reclaimAfterMs: number },
  ): Promise<HeldLeases> {
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

  /** The writes on one id's keys, each one transaction. */
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
    return {
      /** The record at `read` (absent: never used), no live key, for a reclaim no recent key. */
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
      // The record alone while both keys stand under `leases`, else both keys again.
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
      release: async (era: EtcdEra, written: string, data: IdRecordData) =>
        (await txn(heldAt(era, written), [record(data), drop(live)])) !== undefined,
      adminRelease: async (read: string, data: IdRecordData) => {
        const released = text(JSON.stringify({ ...data, owner: null, instance: null }));
        return (await txn([at(id, read)], [put(id, released), drop(live)])) !== undefined;
      },
    };
  }

  /** The put, then the journal's count (for {@link trimJournal}). */
  journalOps(entry: LeaseJournalEntry): EtcdOp[] {
    const at = `${String(entry.atMs).padStart(15, '0')}-${randomUUID().slice(0, 8)}`;
    const { key, rangeEnd } = this.#history();
    return [
      put(this.#key(`history/${at}`), text(encodeJournalEntry(entry))),
      range(key, { rangeEnd, countOnly: true }),
    ];
  }

  /** After {@link journalOps}: the oldest read at the revision counted (concurrent trims agree). */
  async trimJournal(written: TxnAnswer, retention: number): Promise<void> {
    const { revision } = written.header;
    await trimJournal({
      count: Number(String(written.responses.at(-1)?.responseRange?.count ?? 0)),
      retention,
      oldest: async (limit) => {
        const q = { ...this.#history(), keysOnly: true, limit, revision };
        const order = { sortOrder: 'Ascend', sortTarget: 'Create' };
        return (await this.request((c, d) => c.kvRange({ ...q, ...order }, d))).kvs.map(
          (kv) => kv.key,
        );
      },
      remove: async (keys) => void (await this.#txn([], keys.map(drop))),
    });
  }

  async appendJournal(entry: LeaseJournalEntry, retention: number): Promise<void> {
    await this.trimJournal(await this.#txn([], this.journalOps(entry)), retention);
  }

  /** In creation order; pages of 1,000 (under grpc's 4 MiB) at one revision. */
  async readJournal(): Promise<LeaseJournalEntry[]> {
    const { key, rangeEnd } = this.#history();
    const kvs: RawKeyValue[] = [];
    let revision: object | undefined;
    for (let page = 0, from = key; page < 11_001; page++) {
      const q = { key: from, rangeEnd, limit: 1000, revision };
      const r: RangeAnswer = await this.request((c, d) => c.kvRange(q, d));
      revision ??= r.header.revision;
      kvs.push(...r.kvs);
      const last = r.kvs.at(-1);
      if (!r.more || last === undefined) break;
      from = Buffer.concat([last.key, Buffer.from([0])]);
    }
    const created = (kv: RawKeyValue) => BigInt(String(kv.createRevision));
    kvs.sort((a, b) => Number(created(a) - created(b)) || Buffer.compare(a.key, b.key));
    return kvs.flatMap((kv) => decodeJournalEntry(kv.value.toString('utf8')) ?? []);
  }

  #history() {
    const key = this.#key('history/');
    return { key, rangeEnd: prefixEnd(key) };
  }
}

function kvsOf(r: TxnAnswer): RawKeyValue[][] {
  return r.responses.map((op) => op.responseRange?.kvs ?? []);
}
