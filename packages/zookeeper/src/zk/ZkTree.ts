import { hostname } from 'node:os';
import { VestaError } from '@vesta/core';
import {
  decodeJournalEntry,
  encodeJournalEntry,
  trimJournal,
  type LeaseEraState,
  type LeaseEraStore,
  type LeaseJournal,
  type LeaseJournalEntry,
} from '@vesta/lease';
import { z } from 'zod';
import { CreateMode, statTimeMs, unlessZk, ZK, type ZkClient, type ZkOp } from './ZkClient.js';

/** The era node as read, with the version an opening compares. */
export interface ZkEra extends LeaseEraState {
  readonly version: number;
}

export const encodeJson = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

/** Creates the node at `path`, or writes it at `version` when one is given. */
export const put = (path: string, data: Buffer, version: number | undefined): ZkOp => ({
  op: version === undefined ? 'create' : 'setData',
  path,
  data,
  version,
});

/** `value` stamped with this host and process, for operators. */
export const stamped = (value: object): Buffer =>
  encodeJson({ ...value, host: hostname(), pid: process.pid });

/** A node's data as `schema` reads it; undefined when it is not ours to read (never guess a mark). */
const decoder =
  <S extends z.ZodType>(schema: S) =>
  (data: Buffer): z.output<S> | undefined => {
    try {
      return schema.safeParse(JSON.parse(data.toString('utf8'))).data;
    } catch {
      return undefined;
    }
  };

const maybe = <T extends z.ZodType>(type: T) => type.optional().catch(undefined);

/** An id node: `owner` null when released by hand or by a keyless instance. */
export const decodeIdNode = decoder(
  z.object({
    owner: z.string().nullable().catch(null),
    instance: z.string().nullable().catch(null),
    markMs: z.int().min(0),
    genMethod: maybe(z.number()),
    type: maybe(z.number()),
    host: maybe(z.string()),
    pid: maybe(z.number()),
  }),
);
export const decodeKeyNode = decoder(z.object({ machineId: z.number().int() }));
export const decodeEraNode = decoder(z.object({ era: z.string().min(1), open: z.boolean() }));

/** A fleet's tree under its root (see the package README), and the reads and writes on it. */
export class ZkTree {
  readonly ids: string;
  readonly live: string;
  readonly keys: string;
  readonly clock: string;
  readonly era: string;
  readonly history: string;

  constructor(readonly root: string) {
    this.ids = `${root}/ids`;
    this.live = `${root}/live`;
    this.keys = `${root}/keys`;
    this.clock = `${root}/clock`;
    this.era = `${root}/era`;
    this.history = `${root}/history`;
  }

  idPath = (machineId: number): string => `${this.ids}/${machineId}`;
  livePath = (machineId: number): string => `${this.live}/${machineId}`;
  eraToken = (era: string): string => `${this.era}/${era}`;
  keyPath = (key: string): string => `${this.keys}/${encodeURIComponent(key)}`;
  eraCheck = (era: string): ZkOp => ({ op: 'check', path: this.eraToken(era), version: 0 });
  /** The ephemeral node telling that `c`'s session holds `machineId`. */
  liveNode = (machineId: number, c: { key: string; instance: string }): ZkOp => ({
    op: 'create',
    path: this.livePath(machineId),
    data: encodeJson({ owner: c.key, instance: c.instance }),
    ephemeral: true,
  });

  /** An id node (`data` undefined when not ours to read) and its live node's stat. */
  async readId(zk: ZkClient, machineId: number) {
    const [node, live] = await Promise.all([
      zk.getData(this.idPath(machineId)),
      zk.exists(this.livePath(machineId)),
    ]);
    return { node, data: node && decodeIdNode(node.data), live };
  }

  /** ZooKeeper's time (Unix ms) of a write of the clock node; without one, `missing` (the admin's) or created. */
  async writeClock(zk: ZkClient, missing?: () => number): Promise<number> {
    const write = async () => statTimeMs((await zk.setData(this.clock, Buffer.of(), -1)).mtime);
    const written = await unlessZk(write(), undefined, ZK.NO_NODE);
    if (written !== undefined) return written;
    if (missing !== undefined) return missing();
    await unlessZk(zk.create(this.clock, Buffer.of()), '', ZK.NODE_EXISTS);
    return write();
  }

  /** An era's node and its token, created. */
  newEra = (era: string, open: boolean): ZkOp[] => [
    { op: 'create', path: this.era, data: stamped({ era, open }) },
    { op: 'create', path: this.eraToken(era) },
  ];

  /** The era node, created closed with its token in one multi, opened by a versioned write. */
  eraStore(zk: ZkClient): LeaseEraStore<ZkEra> {
    const { era: path } = this;
    return {
      readEra: async () => {
        const node = await zk.getData(path);
        if (node === undefined) return undefined;
        const data = decodeEraNode(node.data);
        if (data !== undefined) return { ...data, version: node.stat.version };
        throw new VestaError(
          'ZOOKEEPER_UNAVAILABLE',
          `${path} holds data this package did not write; remove it by hand to start a new allocation era`,
          { details: { path } },
        );
      },
      createEra: (era) => {
        const created = zk.multi(this.newEra(era, false)).then(() => true);
        return unlessZk(created, false, ZK.NODE_EXISTS);
      },
      openEra: async (found) => {
        const open = zk.setData(path, stamped({ era: found.era, open: true }), found.version);
        await unlessZk(open, undefined, ZK.BAD_VERSION, ZK.NO_NODE);
      },
    };
  }

  /** The journal on the client `zk()` gives now; the count is read after each append. */
  journal(zk: () => ZkClient, retention: number): LeaseJournal {
    const { history } = this;
    return {
      append: async (entry) => {
        const client = zk();
        const data = Buffer.from(encodeJournalEntry(entry));
        const append = () => client.create(`${history}/e-`, data, CreateMode.PERSISTENT_SEQUENTIAL);
        if ((await unlessZk(append(), undefined, ZK.NO_NODE)) === undefined) {
          await client.mkdirp(history);
          await append();
        }
        await trimJournal({
          count: (await client.exists(history))?.numChildren ?? 0,
          retention,
          oldest: async () => {
            const names = (await client.getChildren(history)).sort();
            return names.slice(0, names.length - retention);
          },
          remove: async (batch) => {
            await Promise.all(batch.map((name) => client.removeIfPresent(`${history}/${name}`)));
          },
        });
      },
    };
  }

  /** Every entry the journal keeps, oldest first. */
  async readJournal(zk: ZkClient): Promise<LeaseJournalEntry[]> {
    const names = (await zk.childrenOf(this.history)).sort();
    const nodes = await Promise.all(names.map((name) => zk.getData(`${this.history}/${name}`)));
    return nodes.flatMap((n) => (n && decodeJournalEntry(n.data.toString())) ?? []);
  }
}
