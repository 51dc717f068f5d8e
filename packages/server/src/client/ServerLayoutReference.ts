import { createIdMeta, GenMethod, IdConverter, IdType, VestaError, type IdMeta } from '@vesta/core';
import { presetOf, standardLayout } from '@vesta/core/kit';
import type { Welcome } from '../protocol/WelcomeMessage.js';
import type { ResolvedIdClientOptions } from './IdClientOptions.js';

/** The layout every server of one client must share. */
export type Reference = Pick<Welcome, 'type' | 'epochMs' | 'layoutSpec' | 'version'>;

/** What the options fix before any server answers. */
type Expectation = Pick<ResolvedIdClientOptions, 'type' | 'epochMs' | 'layout' | 'logger' | 'time'>;

const sameLayout = (a: IdMeta, b: IdMeta): boolean =>
  a.unitMs === b.unitMs &&
  a.idType === b.idType &&
  JSON.stringify(a.spec.fields) === JSON.stringify(b.spec.fields);

function describe(layout: IdMeta): string {
  return `${layout.name ?? 'custom'} (${layout.spec.fields.map((f) => `${f.name}:${f.bits}`).join(' ')}, ${layout.unitMs} ms)`;
}

/**
 * What the client's servers must agree on (type, epoch, version, layout), learned from the first
 * handshake unless the options fix it, and the codec that decodes their ids locally.
 */
export class ServerLayoutReference {
  readonly #expect: Expectation;
  #reference: Reference | undefined;
  #codec: IdConverter | undefined;

  constructor(expect: Expectation) {
    this.#expect = expect;
    if (expect.epochMs !== undefined && (expect.type !== undefined || expect.layout !== undefined))
      this.#adoptExpected(expect.epochMs);
  }

  get reference(): Reference | undefined {
    return this.#reference;
  }

  get codec(): IdConverter {
    return this.#codec as IdConverter;
  }

  /** With no server answering: the options' layout, type and epoch, or the standard defaults. */
  assumeStandard(defaultEpochMs: number): void {
    const { layout, logger } = this.#expect;
    const preset = layout === undefined ? undefined : presetOf(layout);
    const epochMs = this.#expect.epochMs ?? preset?.epochMs ?? defaultEpochMs;
    const ref = this.#adoptExpected(epochMs);
    logger.warn(
      { type: ref.type, epochMs, layout: ref.layoutSpec.name ?? 'custom' },
      'no id server answered; the fallback assumes this layout until one does',
    );
  }

  /** Why the server `name` may not be used with this welcome, or undefined; the first one accepted sets the reference. */
  check(name: string, w: Welcome): VestaError | undefined {
    const mismatch = (message: string, options = {}): VestaError =>
      new VestaError('HANDSHAKE_MISMATCH', message, options);
    let layout: IdMeta;
    try {
      layout = createIdMeta(w.layoutSpec);
    } catch (cause) {
      return mismatch(`${name} announced an invalid layout`, { cause });
    }
    // A layout without a genMethod field records none (0): its ids do not say who issued them.
    const genMethod = layout.genMethod.bits > 0 ? GenMethod.CENTRAL_SERVER : 0;
    if (w.genMethod !== genMethod) {
      return mismatch(`${name} issues with genMethod ${w.genMethod}, not ${genMethod}`);
    }
    const ref = this.#reference;
    if (ref === undefined) {
      const { type, epochMs, layout: expected } = this.#expect;
      if (type !== undefined && w.type !== type) {
        return mismatch(`${name} issues ids of type ${w.type}, the client expects ${type}`);
      }
      if (epochMs !== undefined && w.epochMs !== epochMs) {
        return mismatch(`${name} uses epoch ${w.epochMs}, the client expects ${epochMs}`);
      }
      if (expected !== undefined && !sameLayout(layout, expected)) {
        return mismatch(
          `${name} issues the layout ${describe(layout)}, the client expects ${describe(expected)}`,
        );
      }
      this.#adopt(w.type, w.epochMs, layout, w.version);
      return undefined;
    }
    const ours = this.codec.layout;
    const same = w.type === ref.type && w.epochMs === ref.epochMs && w.version === ref.version;
    if (same && sameLayout(layout, ours)) return undefined;
    return mismatch(
      `${name} issues type ${w.type}, epoch ${new Date(w.epochMs).toISOString()}, version ${w.version}, layout ${describe(layout)}; ` +
        `the others type ${ref.type}, epoch ${new Date(ref.epochMs).toISOString()}, version ${ref.version}, layout ${describe(ours)}`,
      { details: { server: name } },
    );
  }

  #adoptExpected(epochMs: number): Reference {
    const layout = this.#expect.layout ?? standardLayout(this.#expect.type ?? IdType.MAX_PEAK);
    return this.#adopt(layout.idType, epochMs, layout, 0, false);
  }

  /** `learned` from a server: warns when its ids run out soon. */
  #adopt(type: IdType, epochMs: number, meta: IdMeta, version: number, learned = true): Reference {
    const ref = Object.freeze({ type, epochMs, layoutSpec: meta.spec, version });
    this.#reference = ref;
    this.#codec = new IdConverter(createIdMeta(ref.layoutSpec), epochMs);
    if (learned) this.#codec.warnIfExpiring(this.#expect.logger, this.#expect.time.now());
    return ref;
  }
}
