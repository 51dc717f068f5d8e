/**
 * Runs in every test worker before its files: each worker gets its own scope for the
 * host-wide machine-id lock, so that test files running side by side in other workers may use
 * the same machine ids. Processes a test spawns inherit the scope, so a test can still show
 * two processes of its own being refused one machine id.
 */
process.env['VESTA_HOST_LOCK_SCOPE'] ??= `vitest-${process.pid}`;
