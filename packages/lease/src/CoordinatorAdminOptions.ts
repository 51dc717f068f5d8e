/** What every coordinator's admin options have besides the connection (see `defineAdminOptions`). */
export interface CoordinatorAdminOptions {
  /** Deadline of the connection and of each request, 1 to 600000. @default 5000 */
  readonly timeoutMs?: number;
}
