import { createHash } from 'node:crypto';
import { VestaError } from '../errors/VestaError.js';
import { createIdMeta, fieldsMask, vestaLayoutSpec } from '../layout/IdMeta.js';
import type { IdMeta, IdMetaFieldSpec, IdMetaWidths } from '../layout/IdMeta.js';

/** Everything that shapes the ids of one instance; the state dir and host lock are keyed by it. */
export interface IdIdentity {
  readonly layout: IdMetaWidths;
  /** The field order, only for a layout not in Vesta's order (older mark files stay valid). */
  readonly fields?: readonly IdMetaFieldSpec[];
  readonly epochMs: number;
  readonly unitMs: number;
  readonly machine: number;
  readonly genMethod: number;
  readonly type: number;
  readonly version: number;
}

const FIXED_FIELDS = ['machine', 'genMethod', 'type', 'version'] as const;

export function layoutOf(identity: IdIdentity): IdMeta {
  const type = identity.type === 1 ? 1 : 0;
  const unitMs = Math.max(1, identity.unitMs);
  return createIdMeta(
    identity.fields === undefined
      ? vestaLayoutSpec(identity.layout, type, unitMs)
      : { fields: identity.fields, unitMs, type },
  );
}

export function identityOf(
  layout: IdMeta,
  epochMs: number,
  fixed: Pick<IdIdentity, 'machine' | 'genMethod' | 'version'>,
): IdIdentity {
  return Object.freeze({
    layout: layout.widths,
    ...(layout.vestaOrder ? {} : { fields: layout.spec.fields }),
    epochMs,
    unitMs: layout.unitMs,
    machine: fixed.machine,
    genMethod: fixed.genMethod,
    type: layout.idType,
    version: fixed.version,
  });
}

/** Whether no id of `a` can equal an id of `b`: some bit is fixed by both, to different values. */
export function fixedBitsDiffer(a: IdIdentity, b: IdIdentity): boolean {
  const [ma, mb] = [layoutOf(a), layoutOf(b)];
  const valueOf = (identity: IdIdentity, meta: IdMeta): bigint =>
    FIXED_FIELDS.reduce(
      (value, n) => value | ((BigInt(identity[n]) & meta[n].maxBig) << meta[n].startBig),
      0n,
    );
  const both = fieldsMask(ma, FIXED_FIELDS) & fieldsMask(mb, FIXED_FIELDS);
  return (both & (valueOf(a, ma) ^ valueOf(b, mb))) !== 0n;
}

/** What differs, one phrase each (`epoch 2025-... -> 2026-...`). */
function describeIdentityChanges(before: IdIdentity, after: IdIdentity): string[] {
  const changes: string[] = [];
  const shapeOf = (identity: IdIdentity): string =>
    identity.fields === undefined
      ? JSON.stringify(identity.layout)
      : identity.fields.map((f) => `${f.name}:${f.bits}`).join(',');
  if (shapeOf(before) !== shapeOf(after)) {
    changes.push(`layout ${shapeOf(before)} -> ${shapeOf(after)}`);
  }
  if (before.epochMs !== after.epochMs) {
    const date = (ms: number): string =>
      Number.isFinite(ms) ? new Date(ms).toISOString() : 'unknown';
    changes.push(`epoch ${date(before.epochMs)} -> ${date(after.epochMs)}`);
  }
  for (const key of ['unitMs', ...FIXED_FIELDS] as const) {
    if (before[key] !== after[key]) changes.push(`${key} ${before[key]} -> ${after[key]}`);
  }
  return changes;
}

/** The host-wide lock of an identity: one per mode and machine id, whatever the layouts. */
export function hostLockKey(identity: IdIdentity): string {
  return `m${identity.machine}-g${identity.genMethod}`;
}

export function identityDigest(identity: IdIdentity): string {
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

/** A time mark (Unix ms) kept by an earlier instance, with the identity it issued under. */
export interface StoredMark {
  /** Where it was kept, for messages. */
  readonly source: string;
  readonly markMs: number;
  readonly identity: IdIdentity;
}

/**
 * Whether an earlier instance's mark bounds the times `ours` may use: true for the same identity
 * or time field (epoch not earlier); false for another machine id or when no id of the two can
 * meet; else STATE_MISMATCH, naming what changed.
 */
export function checkStoredMark(stored: StoredMark, ours: IdIdentity): boolean {
  const changes = describeIdentityChanges(stored.identity, ours);
  if (changes.length === 0) return true;
  if (stored.identity.machine !== ours.machine) return false;
  if (fixedBitsDiffer(stored.identity, ours)) return false;
  const [was, now] = [layoutOf(stored.identity).time, layoutOf(ours).time];
  const sameTime = was.start === now.start && was.bits === now.bits;
  if (sameTime && stored.identity.unitMs === ours.unitMs && ours.epochMs <= stored.identity.epochMs)
    return true;
  throw new VestaError(
    'STATE_MISMATCH',
    `${stored.source} was written under other id options (${changes.join('; ')}), under which ` +
      `ids up to ${new Date(stored.markMs).toISOString()} were issued; the new options could ` +
      'issue some of them again. Restart with the previous options or another machine id; remove ' +
      `${stored.source} only once no id issued under the old options can meet the new ones.`,
    { details: { source: stored.source, changes, markMs: stored.markMs } },
  );
}
