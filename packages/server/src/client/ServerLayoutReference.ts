import {
  GenMethod,
  IdCodec,
  IdType,
  standardLayout,
  vestaLayout,
  VestaError,
  type IdLayout,
  type IdLayoutWidths,
  type Logger,
  type TimeSource,
} from '@vesta/core';
import type { Welcome } from '../protocol/WelcomeMessage.js';

/** The layout every server of one client must share. */
export interface Reference {
  readonly type: IdType;
  readonly epochMs: number;
  readonly layout: IdLayoutWidths;
  readonly version: number;
}

/**
 * What the client's servers must agree on (type, epoch, version, layout), learned from the
 * first handshake unless the options fix it, and the codec that decodes their ids locally.
 */
export class ServerLayoutReference {
  readonly #expect: { readonly type: IdType | undefined; readonly epochMs: number | undefined };
  readonly #logger: Logger;
  readonly #time: TimeSource;
  #reference: Reference | undefined;
  #codec: IdCodec | undefined;

  constructor(
    expect: { readonly type: IdType | undefined; readonly epochMs: number | undefined },
    logger: Logger,
    time: TimeSource,
  ) {
    this.#expect = expect;
    this.#logger = logger;
    this.#time = time;
    if (expect.type !== undefined && expect.epochMs !== undefined) {
      this.#adopt(standardReference(expect.type, expect.epochMs), false);
    }
  }

  /** The reference, once known (from the options or a handshake). */
  get reference(): Reference | undefined {
    return this.#reference;
  }

  /** The codec of the reference; call only once it is known. */
  get codec(): IdCodec {
    return this.#codec as IdCodec;
  }

  /** With no server answering: the options' type and epoch, or the standard defaults. */
  assumeStandard(defaultEpochMs: number): Reference {
    const type = this.#expect.type ?? IdType.MAX_PEAK;
    const epochMs = this.#expect.epochMs ?? defaultEpochMs;
    this.#logger.warn(
      { type, epochMs },
      'no id server answered; the fallback assumes this layout until one does',
    );
    return this.#adopt(standardReference(type, epochMs), false);
  }

  /**
   * Why the server `name` may not be used with this welcome (an invalid layout, another
   * genMethod, type, epoch, version or layout than the others'), or undefined; the first
   * acceptable welcome sets the reference.
   */
  check(name: string, w: Welcome): VestaError | undefined {
    let layout: IdLayout;
    try {
      layout = vestaLayout(w.type === IdType.MIN_GRANULARITY ? w.type : IdType.MAX_PEAK, w.layout);
    } catch (cause) {
      return new VestaError('HANDSHAKE_MISMATCH', `${name} announced an invalid layout`, {
        cause,
      });
    }
    if (w.genMethod !== GenMethod.CENTRAL_SERVER) {
      return new VestaError(
        'HANDSHAKE_MISMATCH',
        `${name} issues with genMethod ${w.genMethod}, not ${GenMethod.CENTRAL_SERVER}`,
      );
    }
    const ref = this.#reference;
    if (ref === undefined) {
      const expect = this.#expect;
      if (expect.type !== undefined && w.type !== expect.type) {
        return new VestaError(
          'HANDSHAKE_MISMATCH',
          `${name} issues ids of type ${w.type}, the client expects ${expect.type}`,
        );
      }
      if (expect.epochMs !== undefined && w.epochMs !== expect.epochMs) {
        return new VestaError(
          'HANDSHAKE_MISMATCH',
          `${name} uses epoch ${w.epochMs}, the client expects ${expect.epochMs}`,
        );
      }
      this.#adopt(
        { type: w.type, epochMs: w.epochMs, layout: layout.widths, version: w.version },
        true,
      );
      return undefined;
    }
    const same =
      w.type === ref.type &&
      w.epochMs === ref.epochMs &&
      w.version === ref.version &&
      (Object.keys(ref.layout) as (keyof IdLayoutWidths)[]).every(
        (k) => ref.layout[k] === layout.widths[k],
      );
    if (same) return undefined;
    return new VestaError(
      'HANDSHAKE_MISMATCH',
      `${name} issues type ${w.type}, epoch ${new Date(w.epochMs).toISOString()}, version ${w.version}, layout ${JSON.stringify(w.layout)}; ` +
        `the others type ${ref.type}, epoch ${new Date(ref.epochMs).toISOString()}, version ${ref.version}, layout ${JSON.stringify(ref.layout)}`,
      { details: { server: name } },
    );
  }

  #adopt(ref: Reference, learned: boolean): Reference {
    this.#reference = Object.freeze(ref);
    this.#codec = new IdCodec(vestaLayout(ref.type, ref.layout), ref.epochMs);
    if (learned) this.#codec.warnIfExpiring(this.#logger, this.#time.now());
    return this.#reference;
  }
}

function standardReference(type: IdType, epochMs: number): Reference {
  return { type, epochMs, layout: standardLayout(type).widths, version: 0 };
}
