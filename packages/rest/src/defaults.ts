/* `@vesta/rest/defaults`: imports nothing, so a tool can show them without loading the server. */

/** The port of a REST server when none is set. */
export const DEFAULT_REST_PORT = 8080;
/** The largest batch of one `/genids` request when none is set. */
export const DEFAULT_REST_MAX_BATCH = 10_000;
