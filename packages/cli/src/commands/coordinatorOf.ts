import { VestaError } from '@vesta/core';
import { importOptional, withoutSecrets } from '@vesta/core/kit';
import type { CoordinatorDescriptor } from '@vesta/lease';

type Loaders = Readonly<Record<string, () => Promise<CoordinatorDescriptor>>>;

/** The coordinator packages, each imported when a URL's scheme starts with its name. */
export const COORDINATOR_PACKAGES: Loaders = {
  zookeeper: async () => (await import('@vesta/zookeeper')).zooKeeperCoordinator,
  redis: async () => (await import('@vesta/redis')).redisCoordinator,
  postgres: async () => (await import('@vesta/postgres')).postgresCoordinator,
  etcd: async () => (await import('@vesta/etcd')).etcdCoordinator,
};

/** The descriptors help lists, and the packages not installed, once {@link loadCoordinatorHelp} ran. */
let described: readonly CoordinatorDescriptor[] = [];
let missing: readonly string[] = [];

/** Loads every installed coordinator package, for help and for the error of an unknown scheme. */
export async function loadCoordinatorHelp(packages: Loaders = COORDINATOR_PACKAGES) {
  const loaded = await Promise.all(
    Object.entries(packages).map(([name, load]) => load().catch(() => `@vesta/${name}`)),
  );
  described = loaded.filter((c) => typeof c !== 'string');
  missing = loaded.filter((c) => typeof c === 'string');
  return described;
}

/** A URL's coordinator: PACKAGE_MISSING when not installed, INVALID_OPTIONS when unknown. */
export async function coordinatorOf(
  url: string,
  packages: Loaders = COORDINATOR_PACKAGES,
): Promise<CoordinatorDescriptor> {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase() ?? '';
  const name = Object.keys(packages).find((n) => scheme.startsWith(n));
  const load = name === undefined ? undefined : packages[name];
  if (name !== undefined && load !== undefined) {
    const found = await importOptional(`@vesta/${name}`, load, `${name}:// coordinators need`);
    if (found.schemes.includes(scheme)) return found;
  }
  const forms = (await loadCoordinatorHelp(packages)).map((c) => c.form);
  throw new VestaError(
    'INVALID_OPTIONS',
    `--coordinator must be one of ${forms.join(', ')}; got ${JSON.stringify(withoutSecrets(url))}`,
  );
}

/** Every scheme help lists, as `zookeeper://, redis:// (rediss://), ...`. */
export function coordinatorSchemes(): string {
  return described
    .map(({ schemes: [first, ...others] }) =>
      others.length === 0 ? `${first}://` : `${first}:// (${others.join('://, ')}://)`,
    )
    .join(', ');
}

/** The help paragraph of `--coordinator`: each coordinator's URL form and an example. */
export function coordinatorHelp(): string {
  const lines = described.flatMap((c) => [
    `  ${c.form}${c.schemes.length > 1 ? ` (also ${c.schemes.slice(1).join('://, ')}://)` : ''}`,
    `      e.g. ${c.example}`,
  ]);
  if (missing.length > 0)
    lines.push(`  not installed: ${missing.join(', ')} (npm install one to use it)`);
  return `\nCoordinators (--coordinator <url>):\n${lines.join('\n')}`;
}
