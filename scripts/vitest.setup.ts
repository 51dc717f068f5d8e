import { randomUUID } from 'node:crypto';

/**
 * Runs before every test file: each file gets its own scope for the host-wide machine-id lock
 * and host marks, so that files running side by side may use the same machine ids under
 * different id options, in worker processes or in worker threads of one process (the unit
 * project's, which share a pid). Processes a test spawns inherit the scope, so a test can still
 * show two processes of its own being refused one machine id.
 */
process.env['VESTA_HOST_LOCK_SCOPE'] = `vitest-${process.pid}-${randomUUID().slice(0, 8)}`;
