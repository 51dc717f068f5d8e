import { hostname } from 'node:os';

/** What an id node holds (JSON). `owner` null: released by hand or by a keyless instance. */
export interface IdNodeData {
  readonly owner: string | null;
  /** The owning process's random instance id: tells a restart of the same key from itself. */
  readonly instance: string | null;
  /** Unix ms; the owner issues nothing at or after it until it raises it. */
  readonly markMs: number;
  readonly genMethod?: number;
  readonly type?: number;
  readonly host?: string;
  readonly pid?: number;
}

/** Encodes node data as JSON bytes. */
export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/** Encodes an id node, stamped with this host and process (for operators' listings). */
export function encodeIdNode(node: Omit<IdNodeData, 'host' | 'pid'>): Buffer {
  return encodeJson({ ...node, host: hostname(), pid: process.pid });
}

/** Decodes an id node; undefined when it is not ours to read (never guess a mark). */
export function decodeIdNode(data: Buffer): IdNodeData | undefined {
  try {
    const value = JSON.parse(data.toString('utf8')) as Partial<IdNodeData>;
    if (typeof value.markMs !== 'number' || !Number.isSafeInteger(value.markMs) || value.markMs < 0)
      return undefined;
    return {
      owner: typeof value.owner === 'string' ? value.owner : null,
      instance: typeof value.instance === 'string' ? value.instance : null,
      markMs: value.markMs,
      ...(typeof value.genMethod === 'number' ? { genMethod: value.genMethod } : {}),
      ...(typeof value.type === 'number' ? { type: value.type } : {}),
      ...(typeof value.host === 'string' ? { host: value.host } : {}),
      ...(typeof value.pid === 'number' ? { pid: value.pid } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Decodes a key node: the machine id it points to, or undefined. */
export function decodeKeyNode(data: Buffer): number | undefined {
  try {
    const value = (JSON.parse(data.toString('utf8')) as { machineId?: unknown }).machineId;
    return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** What the era node (`{root}/era`) holds (JSON). */
export interface EraNodeData {
  /** The era's random id; `{root}/era/{era}` exists for as long as this tree does. */
  readonly era: string;
  /** False while the era waits out the fencing bound: nobody may take an id yet. */
  readonly open: boolean;
}

/** Encodes the era node, stamped with this host and process (who created or opened it). */
export function encodeEraNode(era: string, open: boolean): Buffer {
  return encodeJson({ era, open, host: hostname(), pid: process.pid });
}

/** Decodes the era node; undefined when it is not ours to read. */
export function decodeEraNode(data: Buffer): EraNodeData | undefined {
  try {
    const value = JSON.parse(data.toString('utf8')) as Partial<EraNodeData>;
    return typeof value.era === 'string' && value.era !== '' && typeof value.open === 'boolean'
      ? { era: value.era, open: value.open }
      : undefined;
  } catch {
    return undefined;
  }
}
