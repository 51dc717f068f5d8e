import { createHash } from 'node:crypto';
import {
  createIdMeta,
  vestaLayoutSpec,
  type IdMeta,
  type IdMetaFieldSpec,
  type IdMetaWidths,
} from '../layout/IdMeta.js';

/**
 * Everything that shapes the ids of one instance: the layout (field widths and so their
 * order), the epoch and time unit, and the fixed fields. Two instances with equal identities
 * issue from one id space; the state dir and the host lock are keyed by it.
 */
export interface IdIdentity {
  readonly layout: IdMetaWidths;
  /**
   * The field order (reserved bits included), for a layout whose fields are not in Vesta's
   * order; absent for Vesta-order layouts, so their identities (and mark files) stay as before.
   */
  readonly fields?: readonly IdMetaFieldSpec[];
  readonly epochMs: number;
  readonly unitMs: number;
  readonly machine: number;
  readonly genMethod: number;
  readonly type: number;
  readonly version: number;
}

/** The bits every id of an identity has set to the same value: machine, genMethod, type, version. */
export interface FixedBits {
  readonly mask: bigint;
  readonly value: bigint;
}

const FIXED_FIELDS = ['machine', 'genMethod', 'type', 'version'] as const;

/** The positions of an identity's fields. */
function layoutOf(identity: IdIdentity): IdMeta {
  const type = identity.type === 1 ? 1 : 0;
  const unitMs = Math.max(1, identity.unitMs);
  return createIdMeta(
    identity.fields === undefined
      ? vestaLayoutSpec(identity.layout, type, unitMs)
      : { fields: identity.fields, unitMs, type },
  );
}

/** The identity of the ids a layout, epoch and the fixed fields give. */
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

/** The fixed bits of an identity's ids. */
export function fixedBits(identity: IdIdentity): FixedBits {
  const meta = layoutOf(identity);
  let mask = 0n;
  let value = 0n;
  for (const name of FIXED_FIELDS) {
    const field = meta[name];
    mask |= field.maxBig << field.startBig;
    value |= (BigInt(identity[name]) & field.maxBig) << field.startBig;
  }
  return { mask, value };
}

/**
 * Whether no id of `a` can equal an id of `b` whatever their times and sequences: some bit is
 * fixed by both and fixed to different values (another machine id, genMethod, type, version).
 */
export function fixedBitsDiffer(a: IdIdentity, b: IdIdentity): boolean {
  const fa = fixedBits(a);
  const fb = fixedBits(b);
  return (fa.mask & fb.mask & (fa.value ^ fb.value)) !== 0n;
}

/** Whether the time field sits at the same bits with the same unit in both identities. */
export function sameTimeField(a: IdIdentity, b: IdIdentity): boolean {
  const ma = layoutOf(a);
  const mb = layoutOf(b);
  return ma.time.start === mb.time.start && ma.time.bits === mb.time.bits && a.unitMs === b.unitMs;
}

/** Whether two identities are the same in every respect. */
export function sameIdentity(a: IdIdentity, b: IdIdentity): boolean {
  return describeIdentityChanges(a, b).length === 0;
}

/** What differs from `before` to `after`, one phrase a difference (`epoch 2025-... -> 2026-...`). */
export function describeIdentityChanges(before: IdIdentity, after: IdIdentity): string[] {
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

/**
 * The name of the host-wide lock of an identity: its machine id and genMethod. Two instances of
 * one mode on one machine id are refused whatever their layouts, types or versions (layouts
 * that move or drop fields can overlap in ways fixed bits alone do not show); the modes, whose
 * genMethods set their ids apart, may share an id number.
 */
export function hostLockKey(identity: IdIdentity): string {
  return `m${identity.machine}-g${identity.genMethod}`;
}

/** A digest of the whole identity (hex SHA-256): equal for equal identities, and only then in practice. */
export function identityDigest(identity: IdIdentity): string {
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}
