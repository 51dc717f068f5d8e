import {
  formatId,
  IdConverter,
  VestaError,
  type IdForm,
  type IdGenerators,
  type IdScrambler,
  type IdService,
  type IdServiceInfo,
  type IdType,
} from '@vesta/core';
import {
  createBearerTokenCheck,
  parseIdForm,
  parseIdType,
  vestaLayout,
  FairIdQueue,
  FairIdShare,
  type SegmentNumbers,
} from '@vesta/core/kit';
import type { VestaMetrics } from '@vesta/metrics';
import { buildOpenApiDocument } from '../openapi/buildOpenApiDocument.js';
import type { ResolvedRestAppOptions } from '../RestAppOptions.js';
import type { QueryParams } from './QueryParams.js';

/** What a server built over the handlers answers in place of the service's own (a cluster worker's). */
export interface RestHandlerHooks {
  /** The answer of `/health` (status 200 or 503, a JSON body) in place of the service's health. */
  readonly health?: () => Promise<{ readonly status: number; readonly body: string }>;
}

/**
 * What every route handler of one REST app shares: the service and its generators, the
 * options, and the query readers more than one route uses (id form, scrambling, type,
 * generator), each checking its parameter the same way on every route.
 */
export class RestContext {
  readonly service: IdService;
  readonly generators: IdGenerators;
  /** Segment mode's numbers, when the app has a segment service. */
  readonly segments: SegmentNumbers | undefined;
  readonly scrambler: IdScrambler | undefined;
  readonly maxBatch: number;
  readonly metrics: VestaMetrics;
  readonly hooks: RestHandlerHooks;
  /** Checks an `Authorization` header; undefined when the app takes no token. */
  readonly authorized: ((header: string | undefined) => boolean) | undefined;
  readonly info: IdServiceInfo;
  /** The OpenAPI document, as JSON. */
  readonly openApi: string;
  /** Where `/genids` requests wait their connection's turn for the layout's ids. */
  readonly batches: FairIdQueue;
  // The same rule as the service's codec for which layout decodes an id of each type.
  readonly #codec: IdConverter;
  readonly #layoutJson = new Map<IdType, string>();

  constructor(options: ResolvedRestAppOptions, hooks: RestHandlerHooks) {
    this.service = options.service;
    this.generators = options.generators;
    this.segments = options.segments;
    this.scrambler = options.scrambler;
    this.maxBatch = options.maxBatch;
    this.metrics = options.metrics;
    this.hooks = hooks;
    this.authorized =
      options.authToken === undefined ? undefined : createBearerTokenCheck(options.authToken);
    this.info = options.service.info();
    this.batches = new FairIdQueue(
      new FairIdShare({ idsPerUnit: 2 ** this.info.layout.seqBits, unitMs: this.info.unitMs }),
    );
    this.openApi = JSON.stringify(
      buildOpenApiDocument(this.info, this.maxBatch, this.authorized !== undefined),
    );
    this.#codec = new IdConverter(vestaLayout(this.info.type, this.info.layout), this.info.epochMs);
  }

  /** The widths and unit of the layout of ids of `type`, as JSON (built once per type). */
  layoutOf(type: IdType): string {
    let json = this.#layoutJson.get(type);
    if (json === undefined) {
      const layout = this.#codec.layoutOf(type);
      json = JSON.stringify({ ...layout.widths, unitMs: layout.unitMs });
      this.#layoutJson.set(type, json);
    }
    return json;
  }

  /** The query's `type`, when given. */
  optionalType(query: QueryParams): IdType | undefined {
    const raw = query.optional('type');
    return raw === undefined ? undefined : parseIdType(raw);
  }

  /** The scrambler when the query says `scrambled=true`; INVALID_ARGUMENT when the server has none. */
  scramblerOf(query: QueryParams): IdScrambler | undefined {
    const raw = query.optional('scrambled');
    if (raw === undefined || raw === 'false') return undefined;
    if (raw !== 'true') {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `scrambled must be true or false, got ${JSON.stringify(raw.slice(0, 40))}`,
      );
    }
    if (this.scrambler === undefined) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        'scrambled=true needs a scramble key, and this server has none (--scramble-key)',
      );
    }
    return this.scrambler;
  }

  /** The query's `format`, decimal by default. */
  formOf(query: QueryParams): IdForm {
    const raw = query.optional('format');
    return raw === undefined ? 'decimal' : parseIdForm(raw, 'format');
  }

  /** How the ids of a reply are written, checked before any id is issued. */
  idWriter(query: QueryParams): ((id: bigint) => string) | undefined {
    const form = this.formOf(query);
    const scramble = this.scramblerOf(query);
    if (scramble !== undefined) return (id) => scramble.format(id, form);
    return form === 'decimal' ? undefined : (id) => formatId(id, form);
  }

  /** The generator a request names with `key`, or the service's own. */
  generatorOf(query: QueryParams): IdService {
    const key = query.optional('key');
    return key === undefined ? this.service : this.generators.get(key);
  }
}
