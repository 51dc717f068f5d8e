/*
 * `@vesta/rest/handlers`: the REST API as plain node:http handlers, for mounting it in an HTTP
 * framework other than express (`@vesta/fastify` does). The same handlers `createRestApp` and
 * `startRestServer` serve: one implementation of the routes, their validation and their errors.
 */
export {
  createRestHandlers,
  type HttpHandler,
  type RestHandlers,
} from './http/createRestHandlers.js';
