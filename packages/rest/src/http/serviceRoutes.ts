import { JSON_HEADERS, ok, type RouteTable } from './RestReply.js';
import type { RestContext } from './RestContext.js';
import { errorBody } from './sendRestError.js';

/** The routes about the server itself: `/info`, `/generators`, `/health`, `/metrics`, `/openapi.json`. */
export function serviceRoutes(
  ctx: RestContext,
): RouteTable<'/info' | '/generators' | '/health' | '/metrics' | '/openapi.json'> {
  const { service, generators, metrics, hooks } = ctx;
  return {
    '/info': () =>
      ok(
        JSON.stringify({
          ...service.info(),
          maxBatch: ctx.maxBatch,
          auth: ctx.authorized !== undefined,
          scrambling: ctx.scrambler !== undefined,
        }),
      ),
    '/generators': () => ok(JSON.stringify({ generators: generators.list() })),
    '/health': () => {
      if (hooks.health !== undefined) return hooks.health();
      const health = service.health();
      if (health.ok) return ok('{"status":"ok"}');
      return {
        status: 503,
        body: `{"status":"unavailable",${errorBody(health.code, health.message).slice(1)}`,
      };
    },
    '/metrics': async () => {
      const { contentType, body } = await metrics.render();
      return {
        status: 200,
        body,
        headers: ['content-type', contentType, ...JSON_HEADERS.slice(2)],
      };
    },
    '/openapi.json': () => ok(ctx.openApi),
  };
}
