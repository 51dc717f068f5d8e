/* `@vesta/rest/handlers`: the REST API's node:http handlers, for other frameworks (`@vesta/fastify`). */
export {
  createRestHandlers,
  type HttpHandler,
  type RestHandlers,
} from './http/createRestHandlers.js';
