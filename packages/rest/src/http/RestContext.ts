import { formatId, IdConverter, type IdForm, type IdScrambler, type IdType } from '@vesta/core';
import { createBearerTokenCheck, vestaLayout, FairIdQueue, FairIdShare } from '@vesta/core/kit';
import { buildOpenApiDocument } from './buildOpenApiDocument.js';
import type { ResolvedRestAppOptions } from '../RestAppOptions.js';

/** What a server built over the handlers answers in place of the service's own (a cluster worker's). */
export interface RestHandlerHooks {
  /** The answer of `/health` (status 200 or 503, a JSON body) in place of the service's health. */
  readonly health?: () => Promise<{ readonly status: number; readonly body: string }>;
}

/** What every route handler of one REST app shares: the options and what is built from them once. */
export type RestContext = ReturnType<typeof restContext>;

export function restContext(options: ResolvedRestAppOptions, hooks: RestHandlerHooks) {
  const info = options.service.info();
  const authorized =
    options.authToken === undefined ? undefined : createBearerTokenCheck(options.authToken);
  // The same rule as the service's codec for which layout decodes an id of each type.
  const codec = new IdConverter(vestaLayout(info.type, info.layout), info.epochMs);
  const layoutJson = new Map<IdType, string>();
  return Object.freeze({
    ...options,
    hooks,
    /** Checks an `Authorization` header; undefined when the app takes no token. */
    authorized,
    openApi: JSON.stringify(buildOpenApiDocument(info, options.maxBatch, authorized !== undefined)),
    batches: new FairIdQueue(
      new FairIdShare({ idsPerUnit: 2 ** info.layout.seqBits, unitMs: info.unitMs }),
    ),
    /** The widths and unit of the layout of ids of `type`, as JSON. */
    layoutOf(type: IdType): string {
      let json = layoutJson.get(type);
      if (json === undefined) {
        const layout = codec.layoutOf(type);
        json = JSON.stringify({ ...layout.widths, unitMs: layout.unitMs });
        layoutJson.set(type, json);
      }
      return json;
    },
    /** How ids are written in `form`, scrambled by `scramble` when given; undefined for plain decimal. */
    idWriter(
      form: IdForm,
      scramble: IdScrambler | undefined,
    ): ((id: bigint) => string) | undefined {
      if (scramble !== undefined) return (id) => scramble.format(id, form);
      return form === 'decimal' ? undefined : (id) => formatId(id, form);
    },
  });
}
