/*
 * `@vesta/rest/defaults`: the REST server's defaults, in a module that imports nothing, so that
 * a tool can show them (the `vesta rest` help) without loading the server (express, metrics).
 * `@vesta/rest` exports the same constants.
 */

/** The port of a REST server when none is set. */
export const DEFAULT_REST_PORT = 8080;

/** The largest batch of one `/genids` request when none is set. */
export const DEFAULT_REST_MAX_BATCH = 10_000;
