import { VestaError } from '@vesta/core';
import { withoutSecrets } from '@vesta/core/kit';
import type { Coordinator } from './Coordinator.js';
import { etcdCoordinator } from './etcdCoordinator.js';
import { postgresCoordinator } from './postgresCoordinator.js';
import { redisCoordinator } from './redisCoordinator.js';
import { zookeeperCoordinator } from './zookeeperCoordinator.js';

/**
 * Every coordinator `--coordinator` accepts, by URL scheme. The extension point: a new
 * coordinator (postgres://, etcd://) is one `Coordinator` file beside these (its machine-id module and
 * admin from the URL) and one entry here; the server flags and `vesta machine-ids` pick it up.
 */
export const COORDINATORS: readonly Coordinator[] = [
  zookeeperCoordinator,
  redisCoordinator,
  postgresCoordinator,
  etcdCoordinator,
];

/** The coordinator of a `--coordinator` URL; INVALID_OPTIONS for a scheme none answers to. */
export function coordinatorFor(url: string): Coordinator {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  const coordinator = COORDINATORS.find((c) => scheme !== undefined && c.schemes.includes(scheme));
  if (coordinator === undefined) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--coordinator must be one of ${COORDINATORS.map((c) => c.form).join(', ')}; got ${JSON.stringify(withoutSecrets(url))}`,
    );
  }
  return coordinator;
}
