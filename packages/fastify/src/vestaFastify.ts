import { VestaError, type IdService } from '@vesta/core';
import { createRestIdService, resolveRestAppOptions } from '@vesta/rest';
import { createRestHandlers, type HttpHandler, type RestHandlers } from '@vesta/rest/handlers';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, RegisterOptions } from 'fastify';
import fp from 'fastify-plugin';
import { resolveVestaFastifyOptions, type VestaFastifyOptions } from './VestaFastifyOptions.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The id service `vestaFastify` serves (`app.vesta.genId()` in your own routes). */
    readonly vesta: IdService;
  }
}

/**
 * Hands a request to one of the REST API's handlers, which writes the answer itself: the same
 * bytes as express's. Headers a hook has set already (CORS, ...) go with it. The handler reads
 * the URL below `prefix`, as express gives a mounted app's handlers theirs (a prefix such as
 * `/segment` must not read as a route's own path); it reads it at once, so it is put back after.
 */
function answer(
  request: FastifyRequest,
  reply: FastifyReply,
  handler: HttpHandler,
  prefix = '',
): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.hijack();
  const raw = request.raw;
  const url = raw.url ?? '/';
  if (prefix !== '' && url.startsWith(prefix)) raw.url = url.slice(prefix.length) || '/';
  try {
    void handler(raw, reply.raw);
  } finally {
    raw.url = url;
  }
}

/** An error of fastify's own (`FST_ERR_...`), raised on the way to a route. */
function raisedByFastify(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('FST_');
}

/** The path of a request below the routes' prefix, without its query. */
function pathBelow(request: FastifyRequest, prefix: string): string {
  const url = request.raw.url ?? '/';
  const at = url.indexOf('?');
  return (at < 0 ? url : url.slice(0, at)).slice(prefix.length);
}

/**
 * The routes, in a context of their own (their prefix, 404 and error handler, content-type
 * parsers): each route's GET and HEAD, 405 METHOD_NOT_ALLOWED for its other methods, Vesta's
 * NOT_FOUND below a prefix, coded errors for what fastify raises.
 */
function restRoutes(handlers: RestHandlers): FastifyPluginAsync {
  return async (app) => {
    const prefix = app.prefix;
    const notFound = (request: FastifyRequest, reply: FastifyReply): void =>
      answer(request, reply, (_req, res) => handlers.notFound(res, pathBelow(request, prefix)));
    // No route reads a body (express's app reads none either): a body of any type is left
    // unread, so another method is a 405, never a 415 or a 400 of fastify's parsers.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));
    app.setErrorHandler((error, request, reply) => {
      // A hook of the app's (auth, rate limits, ...) failed: the app's error handler answers, as
      // express's answers what the app's own middleware raises.
      if (!VestaError.is(error) && !raisedByFastify(error)) throw error;
      answer(request, reply, (_req, res) => handlers.failed(res, error));
    });
    if (prefix !== '') app.setNotFoundHandler(notFound);
    const otherMethods = app.supportedMethods.filter((m) => m !== 'GET' && m !== 'HEAD');
    for (const [path, handler] of handlers.routes) {
      // `{key}` is read from the URL by the route itself, so a wildcard: fastify's parameters
      // are cut at maxParamLength (100), and a segment key may be 200 code points.
      const param = path.indexOf('{');
      const url = param < 0 ? path : `${path.slice(0, param)}*`;
      // As express's `{:key}`: one segment (a trailing '/' allowed, which the route refuses).
      const oneSegment = (request: FastifyRequest): boolean => {
        const key = pathBelow(request, prefix).slice(param);
        const slash = key.indexOf('/');
        return slash < 0 || slash === key.length - 1;
      };
      const serve =
        (answering: HttpHandler) =>
        (request: FastifyRequest, reply: FastifyReply): void => {
          if (param >= 0 && !oneSegment(request)) notFound(request, reply);
          else answer(request, reply, answering, prefix);
        };
      // The id page at '/' is reached as '<prefix>/' only: its links are relative.
      const prefixTrailingSlash = path === '/' && prefix !== '' ? 'slash' : 'both';
      app.route({
        method: ['GET', 'HEAD'],
        url,
        exposeHeadRoute: false,
        prefixTrailingSlash,
        handler: serve(handler),
      });
      const notAllowed = handlers.methodNotAllowed.get(path);
      if (notAllowed !== undefined) {
        app.route({ method: otherMethods, url, prefixTrailingSlash, handler: serve(notAllowed) });
      }
    }
    if (prefix !== '') {
      // '<prefix>' without its slash: sent to '<prefix>/' (relative, as express does), where
      // the page's relative links resolve.
      app.route({
        method: ['GET', 'HEAD'],
        url: '/',
        exposeHeadRoute: false,
        prefixTrailingSlash: 'no-slash',
        handler: (request, reply) => {
          const url = request.raw.url ?? '';
          const at = url.indexOf('?');
          const last = prefix.slice(prefix.lastIndexOf('/') + 1);
          void reply.redirect(`./${last}/${at < 0 ? '' : url.slice(at)}`, 308);
        },
      });
    }
  };
}

/** The plugin's function; {@link vestaFastify} is it, marked for fastify-plugin. */
const plugin: FastifyPluginAsync<VestaFastifyOptions> = async (fastify, options) => {
  // fastify hands the plugin its register options too: `prefix` is the plugin's own (see
  // VestaFastifyOptions), the logging ones apply to its routes.
  const { logLevel, logSerializers, ...own } = options as VestaFastifyOptions &
    Pick<RegisterOptions, 'logLevel' | 'logSerializers'>;
  const { source, prefix, app } = resolveVestaFastifyOptions(own);
  const created = source.service === undefined;
  const service = created ? await createRestIdService(source.serviceOptions) : source.service;
  let handlers: RestHandlers;
  try {
    handlers = createRestHandlers(resolveRestAppOptions({ ...app, service }));
  } catch (error) {
    if (created) await service.close();
    throw error;
  }
  if (created) fastify.addHook('onClose', () => service.close());
  fastify.decorate('vesta', service);
  const routeOptions: RegisterOptions = { prefix };
  if (logLevel !== undefined) routeOptions.logLevel = logLevel;
  if (logSerializers !== undefined) routeOptions.logSerializers = logSerializers;
  await fastify.register(restRoutes(handlers), routeOptions);
};

/**
 * Vesta's REST API in a fastify 5 app: the routes of `createRestApp` (`/genid`, `/genids`, ...,
 * the id page and `/openapi.json`), served by the same handlers, so the answers, the query
 * validation and the coded errors are the express app's, byte for byte. Decorates the app with
 * `vesta`, the id service. A service it created from `serviceOptions` is closed in `onClose`
 * (`app.close()`); a `service` passed in is left to its owner.
 *
 * @example
 * const app = Fastify();
 * await app.register(vestaFastify, { serviceOptions: { machineId: 1000 }, prefix: '/ids' });
 * await app.listen({ port: 3000 }); // GET /ids/genid -> {"id":"..."}
 */
export const vestaFastify: FastifyPluginAsync<VestaFastifyOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@vesta/fastify',
});
