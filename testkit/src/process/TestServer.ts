/** A server a test owns, run as a child process on 127.0.0.1 (every `start<Thing>Server()`). */
export interface TestServer {
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** The server's process id while it runs. */
  readonly pid: number | undefined;
  /** Stops it: gracefully, or as a crash with `{ kill: true }`. Its data stays. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Starts it again on the same port with the data it had. */
  restart(): Promise<void>;
  /** Makes it lose all its data and answer again on the same port. */
  wipe(): Promise<void>;
  /** Stops it and deletes its directory. */
  dispose(): Promise<void>;
}
