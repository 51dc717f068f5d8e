import {
  formatId,
  IdConverter,
  type IdForm,
  type IdGenerators,
  type IdScrambler,
  type IdService,
  type IdServiceInfo,
  type IdType,
} from '@vesta/core';
import {
  createBearerTokenCheck,
  vestaLayout,
  FairIdQueue,
  FairIdShare,
  type SegmentNumbers,
} from '@vesta/core/kit';
import type { VestaMetrics } from '@vesta/metrics';
import { buildOpenApiDocument } from '../openapi/buildOpenApiDocument.js';
import type { ResolvedRestAppOptions } from '../RestAppOptions.js';

/** What a server built over the handlers answers in place of the service's own (a cluster worker's). */
export interface RestHandlerHooks {
  /** The answer of `/health` (status 200 or 503, a JSON body) in place of the service's health. */
  readonly health?: () => Promise<{ readonly status: number; readonly body: string }>;
}

/** What every route handler of one REST app shares: the service, its generators and the options. */
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

  /** How ids are written in `form`, scrambled by `scramble` when given; undefined for plain decimal. */
  idWriter(form: IdForm, scramble: IdScrambler | undefined): ((id: bigint) => string) | undefined {
    if (scramble !== undefined) return (id) => scramble.format(id, form);
    return form === 'decimal' ? undefined : (id) => formatId(id, form);
  }
}
