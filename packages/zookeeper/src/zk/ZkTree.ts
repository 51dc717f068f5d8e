import { hostname } from 'node:os';
import { VestaError } from '@vesta/core';
import {
  decodeJournalEntry,
  encodeJournalEntry,
  type LeaseEraState,
  type LeaseEraStore,
  type LeaseJournal,
  type LeaseJournalEntry,
} from '@vesta/lease';
import { statTimeMs, unlessZk, ZK, type ZkClient } from './ZkClient.js';

/** What an id node holds. `owner` null: released by hand or by a keyless instance. */
export interface IdNodeData {
  readonly owner: string | null;
  readonly instance: string | null;
  readonly markMs: number;
  readonly genMethod?: number;
  readonly type?: number;
  readonly host?: string;
  readonly pid?: number;
}

/** The era node as read, with the version an opening compares. */
export interface ZkEra extends LeaseEraState {
  readonly version: number;
}

export const encodeJson = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

/** `value` stamped with this host and process, for operators. */
export const stamped = (value: object): Buffer =>
  encodeJson({ ...value, host: hostname(), pid: process.pid });

/** A node's JSON object; undefined when it is not ours to read (never guess a mark). */
function json(data: Buffer): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(data.toString('utf8')) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const ifType = <K extends string>(name: K, value: unknown, type: 'number' | 'string') =>
  typeof value === type ? { [name]: value } : {};

export function decodeIdNode(data: Buffer): IdNodeData | undefined {
  const v = json(data);
  if (v === undefined || !Number.isSafeInteger(v.markMs) || (v.markMs as number) < 0)
    return undefined;
  return {
    owner: typeof v.owner === 'string' ? v.owner : null,
    instance: typeof v.instance === 'string' ? v.instance : null,
    markMs: v.markMs as number,
    ...ifType('genMethod', v.genMethod, 'number'),
    ...ifType('type', v.type, 'number'),
    ...ifType('host', v.host, 'string'),
    ...ifType('pid', v.pid, 'number'),
  };
}

/** A key node's machine id. */
export function decodeKeyNode(data: Buffer): number | undefined {
  const id = json(data)?.machineId;
  return typeof id === 'number' && Number.isInteger(id) ? id : undefined;
}

export function decodeEraNode(data: Buffer): LeaseEraState | undefined {
  const v = json(data);
  return typeof v?.era === 'string' && v.era !== '' && typeof v.open === 'boolean'
    ? { era: v.era, open: v.open }
    : undefined;
}

/**
 * A fleet's tree under its root, and the reads and writes its provider, holds and admin share:
 *
 * - `ids/{machineId}`: the allocation (owner key, owner instance, time mark).
 * - `live/{machineId}`: ephemeral; present while the owner's session lives.
 * - `keys/{key}`: which id a key holds (key URI-encoded).
 * - `clock`: written to read ZooKeeper's clock.
 * - `era` (`{ era, open }`) and `era/{era}`, the era's token: every claim and renewal checks the
 *   token, so nothing written under a lost tree's era lands in a new tree, where versions start
 *   again and could match.
 * - `history/e-{counter}`: the lease journal, one JSON entry each.
 */
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
  eraCheck = (era: string) => ({ op: 'check' as const, path: this.eraToken(era), version: 0 });

  /**
   * Writes the clock node and returns ZooKeeper's time of the write (Unix ms). Without a clock
   * node, `missing` answers when given (the admin's read-only probe); else the node is created.
   */
  async writeClock(zk: ZkClient, missing?: () => number): Promise<number> {
    const write = async () => statTimeMs((await zk.setData(this.clock, Buffer.alloc(0), -1)).mtime);
    const written = await unlessZk(write(), undefined, ZK.NO_NODE);
    if (written !== undefined) return written;
    if (missing !== undefined) return missing();
    await unlessZk(zk.create(this.clock, Buffer.alloc(0)), '', ZK.NODE_EXISTS);
    return write();
  }

  /** The era node, created closed with its token in one multi, opened by a versioned write. */
  eraStore(zk: ZkClient): LeaseEraStore<ZkEra> {
    return {
      readEra: async () => {
        const node = await zk.getData(this.era);
        if (node === undefined) return undefined;
        const data = decodeEraNode(node.data);
        if (data !== undefined) return { ...data, version: node.stat.version };
        throw new VestaError(
          'ZOOKEEPER_UNAVAILABLE',
          `${this.era} holds data this package did not write; remove it by hand to start a new allocation era`,
          { details: { path: this.era } },
        );
      },
      createEra: (era) =>
        unlessZk(
          zk
            .multi([
              { op: 'create', path: this.era, data: stamped({ era, open: false }) },
              { op: 'create', path: this.eraToken(era), data: Buffer.alloc(0) },
            ])
            .then(() => true),
          false,
          ZK.NODE_EXISTS,
        ),
      openEra: async (found) => {
        const open = stamped({ era: found.era, open: true });
        await unlessZk(
          zk.setData(this.era, open, found.version),
          undefined,
          ZK.BAD_VERSION,
          ZK.NO_NODE,
        );
      },
    };
  }

  /**
   * The journal on the client `zk()` gives now. Past `retention` plus a tenth (the count is read
   * after each append, the names are not), the oldest are removed, a hundred in flight at once.
   */
  journal(zk: () => ZkClient, retention: number): LeaseJournal {
    return {
      append: async (entry) => {
        const client = zk();
        const data = Buffer.from(encodeJournalEntry(entry));
        const prefix = `${this.history}/e-`;
        const made = await unlessZk(client.createSequential(prefix, data), undefined, ZK.NO_NODE);
        if (made === undefined) {
          await client.mkdirp(this.history);
          await client.createSequential(prefix, data);
        }
        const count = (await client.exists(this.history))?.numChildren ?? 0;
        if (count <= retention + Math.floor(retention / 10)) return;
        const names = (await client.getChildren(this.history)).sort();
        const oldest = names.slice(0, names.length - retention);
        for (let at = 0; at < oldest.length; at += 100) {
          const batch = oldest.slice(at, at + 100);
          await Promise.all(batch.map((name) => client.removeIfPresent(`${this.history}/${name}`)));
        }
      },
    };
  }

  /** Every entry the journal keeps, oldest first. */
  async readJournal(zk: ZkClient): Promise<LeaseJournalEntry[]> {
    const names = (await zk.childrenOf(this.history)).sort();
    const nodes = await Promise.all(names.map((name) => zk.getData(`${this.history}/${name}`)));
    return nodes.flatMap((n) =>
      n === undefined ? [] : (decodeJournalEntry(n.data.toString()) ?? []),
    );
  }
}
