import {
  createIdMeta,
  GenMethod,
  IdConverter,
  IdType,
  VestaError,
  type IdMeta,
  type IdMetaSpec,
  type IdMetaWidths,
  type Logger,
  type TimeSource,
} from '@vesta/core';
import { presetOf, standardLayout } from '@vesta/core/kit';
import type { Welcome } from '../protocol/WelcomeMessage.js';

/** The layout every server of one client must share. */
export interface Reference {
  readonly type: IdType;
  readonly epochMs: number;
  readonly layout: IdMetaWidths;
  readonly layoutSpec: IdMetaSpec;
  readonly version: number;
}

/** What the options fix before any server answers. */
export interface ReferenceExpectation {
  readonly type: IdType | undefined;
  readonly epochMs: number | undefined;
  readonly layout?: IdMeta | undefined;
}

function sameLayout(a: IdMeta, b: IdMeta): boolean {
  return (
    a.unitMs === b.unitMs &&
    a.idType === b.idType &&
    a.spec.fields.length === b.spec.fields.length &&
    a.spec.fields.every((f, i) => {
      const g = b.spec.fields[i];
      return g !== undefined && f.name === g.name && f.bits === g.bits;
    })
  );
}

function describe(layout: IdMeta): string {
  return `${layout.name ?? 'custom'} (${layout.spec.fields.map((f) => `${f.name}:${f.bits}`).join(' ')}, ${layout.unitMs} ms)`;
}

/**
 * What the client's servers must agree on (type, epoch, version, layout), learned from the first
 * handshake unless the options fix it, and the codec that decodes their ids locally.
 */
export class ServerLayoutReference {
  readonly #expect: ReferenceExpectation;
  readonly #logger: Logger;
  readonly #time: TimeSource;
  #reference: Reference | undefined;
  #codec: IdConverter | undefined;

  constructor(expect: ReferenceExpectation, logger: Logger, time: TimeSource) {
    this.#expect = expect;
    this.#logger = logger;
    this.#time = time;
    const epochMs = expect.epochMs;
    if (epochMs !== undefined && (expect.type !== undefined || expect.layout !== undefined)) {
      this.#adopt(this.#expectedReference(epochMs), false);
    }
  }

  get reference(): Reference | undefined {
    return this.#reference;
  }

  get codec(): IdConverter {
    return this.#codec as IdConverter;
  }

  /** With no server answering: the options' layout, type and epoch, or the standard defaults. */
  assumeStandard(defaultEpochMs: number): Reference {
    const preset = this.#expect.layout === undefined ? undefined : presetOf(this.#expect.layout);
    const epochMs = this.#expect.epochMs ?? preset?.epochMs ?? defaultEpochMs;
    const ref = this.#expectedReference(epochMs);
    this.#logger.warn(
      { type: ref.type, epochMs, layout: ref.layoutSpec.name ?? 'custom' },
      'no id server answered; the fallback assumes this layout until one does',
    );
    return this.#adopt(ref, false);
  }

  /** Why the server `name` may not be used with this welcome, or undefined; the first one accepted sets the reference. */
  check(name: string, w: Welcome): VestaError | undefined {
    const mismatch = (message: string): VestaError => new VestaError('HANDSHAKE_MISMATCH', message);
    let layout: IdMeta;
    try {
      layout = createIdMeta(w.layoutSpec);
    } catch (cause) {
      return new VestaError('HANDSHAKE_MISMATCH', `${name} announced an invalid layout`, {
        cause,
      });
    }
    // A layout without a genMethod field records none (0): its ids do not say who issued them.
    const genMethod = layout.genMethod.bits > 0 ? GenMethod.CENTRAL_SERVER : 0;
    if (w.genMethod !== genMethod) {
      return mismatch(`${name} issues with genMethod ${w.genMethod}, not ${genMethod}`);
    }
    const ref = this.#reference;
    if (ref === undefined) {
      const expect = this.#expect;
      if (expect.type !== undefined && w.type !== expect.type) {
        return mismatch(`${name} issues ids of type ${w.type}, the client expects ${expect.type}`);
      }
      if (expect.epochMs !== undefined && w.epochMs !== expect.epochMs) {
        return mismatch(`${name} uses epoch ${w.epochMs}, the client expects ${expect.epochMs}`);
      }
      if (expect.layout !== undefined && !sameLayout(layout, expect.layout)) {
        return mismatch(
          `${name} issues the layout ${describe(layout)}, the client expects ${describe(expect.layout)}`,
        );
      }
      this.#adopt(
        {
          type: w.type,
          epochMs: w.epochMs,
          layout: layout.widths,
          layoutSpec: layout.spec,
          version: w.version,
        },
        true,
      );
      return undefined;
    }
    const same =
      w.type === ref.type &&
      w.epochMs === ref.epochMs &&
      w.version === ref.version &&
      sameLayout(layout, (this.#codec as IdConverter).layout);
    if (same) return undefined;
    return new VestaError(
      'HANDSHAKE_MISMATCH',
      `${name} issues type ${w.type}, epoch ${new Date(w.epochMs).toISOString()}, version ${w.version}, layout ${describe(layout)}; ` +
        `the others type ${ref.type}, epoch ${new Date(ref.epochMs).toISOString()}, version ${ref.version}, layout ${describe((this.#codec as IdConverter).layout)}`,
      { details: { server: name } },
    );
  }

  #expectedReference(epochMs: number): Reference {
    const layout = this.#expect.layout ?? standardLayout(this.#expect.type ?? IdType.MAX_PEAK);
    return {
      type: layout.idType,
      epochMs,
      layout: layout.widths,
      layoutSpec: layout.spec,
      version: 0,
    };
  }

  #adopt(ref: Reference, learned: boolean): Reference {
    this.#reference = Object.freeze(ref);
    this.#codec = new IdConverter(createIdMeta(ref.layoutSpec), ref.epochMs);
    if (learned) this.#codec.warnIfExpiring(this.#logger, this.#time.now());
    return this.#reference;
  }
}
