/*
 * `@vesta/server/defaults`: the TCP id server's defaults, in a module that imports nothing, so
 * that a tool can show them (the `vesta server` help) without loading the server. `@vesta/server`
 * exports the same constants.
 */

/** The default port of `vesta server`. */
export const DEFAULT_ID_SERVER_PORT = 7070;
