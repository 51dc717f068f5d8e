// Imports nothing, so a tool can show the defaults without loading the server.
/** The default port of `vesta server`. */
export const DEFAULT_ID_SERVER_PORT = 7070;
